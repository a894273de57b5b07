/**
 * Extension, the schema parts of "bring your own travel times" (docs/api.md): `matrix` (the caller's
 * durations and, optionally, distances: row i, column j = from place i to place j), `locations` (the
 * coordinates of each row, for the map and the geometry) and the location shape `{"index": k}` that names
 * a row instead of giving coordinates or an address. What JSON Schema cannot say (square, sizes that agree,
 * indices in range, indices only with a matrix) is src/calls/given-matrix.ts.
 *
 * The shapes map onto VROOM's: `matrices.{profile}.durations` / `.distances` are `matrix.durations` /
 * `.distances`, a job's `location_index` is `index`, and its `location` [lon, lat] is `locations[index]`.
 */
import { fieldPath, type MistakeRule } from '../http/validate.js';
/**
 * Most rows of a matrix: the most places a call can have (a plan's 1000 stops and its 50 vehicles' starts and
 * ends). It also bounds the body limit (src/http/body-size.ts): a full matrix with distances is about 31 MB.
 */
export const MAX_MATRIX_ROWS = 1100;
/** Largest travel time of one leg, in seconds (about 11.6 days): a route of 1000 legs still fits the solver's 32-bit seconds. */
export const MAX_MATRIX_SECONDS = 1_000_000;
/** Largest distance of one leg, in metres (100,000 km). */
export const MAX_MATRIX_METRES = 100_000_000;

export const indexSchema = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_MATRIX_ROWS - 1,
  'x-message': `must be a whole number from 0 to ${MAX_MATRIX_ROWS - 1}: a row of matrix.durations`,
  description:
    'Extension, with `matrix` only: the row (and column) of `matrix.durations` that is this place, from 0. Locations with the same index are one place.',
  examples: [0],
} as const;

const table = (description: string, maximum: number, unit: string, example: readonly (readonly number[])[]) =>
  ({
    type: 'array',
    minItems: 1,
    maxItems: MAX_MATRIX_ROWS,
    // the body limit counts a table as a serializer writes one: compact rows of numbers of at most 12 characters
    'x-body-size': 'table',
    items: {
      type: 'array',
      maxItems: MAX_MATRIX_ROWS,
      items: {
        type: 'number',
        minimum: 0,
        maximum,
        'x-message': `must be a number of ${unit} from 0 to ${maximum}`,
      },
    },
    description,
    examples: [example],
  }) as const;

export const matrixSchema = {
  title: 'TravelMatrix',
  description:
    'Extension: your own travel times (and distances) between the places of the call; no routing engine is asked. Square: row i, column j is the travel from place i to place j. Every location of the call is then `{"index": i}`. See docs/api.md, "Bring your own travel times".',
  type: 'object',
  properties: {
    durations: table(
      'Travel times in seconds, one row per place (fractions are rounded to the nearest second; the diagonal is read as 0).',
      MAX_MATRIX_SECONDS,
      'seconds',
      [
        [0, 600, 900],
        [620, 0, 420],
        [880, 400, 0],
      ],
    ),
    distances: table(
      'Optional: distances in metres, the same size as durations. Absent: estimated from `locations` when given (the built-in model), else 0.',
      MAX_MATRIX_METRES,
      'metres',
      [
        [0, 4200, 6100],
        [4300, 0, 2900],
        [6000, 2800, 0],
      ],
    ),
  },
  required: ['durations'],
  additionalProperties: false,
} as const;

/** `locations`: a list of `coordinates` (the Coordinates shape of src/calls/location-schema.ts), one per row. */
export const matrixLocationsOf = <const C extends object>(coordinates: C) =>
  ({
    type: 'array',
    minItems: 1,
    maxItems: MAX_MATRIX_ROWS,
    items: coordinates,
    description:
      'Extension, with `matrix` only: the coordinates of each row of the matrix, in row order (one per row). They are shown in the waypoints and drawn by `geometry`; the travel times stay those of the matrix.',
  }) as const;

export const geometrySchema = {
  type: 'boolean',
  description:
    'Extension: also answer the line of each route (`geometry`, an encoded polyline of precision 5), where it comes from (`geometrySource`) and its legs. Default false.',
} as const;

/** A matrix cell that JSON.parse read as Infinity (1e400): AJV says "must be a number"; say which numbers. */
export const infiniteMatrixCell: MistakeRule = (failure) => {
  const [field, table] = failure.path;
  if (field !== 'matrix' || failure.keyword !== 'type' || typeof failure.value !== 'number') return undefined;
  const [unit, maximum] = table === 'distances' ? ['metres', MAX_MATRIX_METRES] : ['seconds', MAX_MATRIX_SECONDS];
  return {
    message: `${fieldPath(failure.path)} must be a number of ${unit} from 0 to ${maximum}, not ${String(failure.value)}`,
  };
};
