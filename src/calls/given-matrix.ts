/**
 * Extension, "bring your own travel times" (docs/api.md): a paid call that sends its own `matrix`.
 *
 * Rows: the matrix's rows are the indices; every location of the call is then `{"index": k}` (no coordinates,
 * no address: a call never mixes the two), and the optional `locations` gives the coordinates of each row, in
 * row order, for the waypoints, the geometry and the distances when the matrix has none. Locations with the
 * same index are one place (the same-place rule of a call with a matrix); two rows are two places, however
 * close their coordinates. No geocoder and no routing engine is asked: the solver and the schedule take the
 * matrix's durations (rounded to whole seconds, the diagonal read as 0). Distances absent: estimated from
 * `locations` by the built-in model when given, else 0.
 *
 * The checks JSON Schema cannot make (square, sizes that agree, indices in range, indices only with a matrix)
 * answer 400 invalid_request naming the field and the fix; a test key's matrix has at most as many rows as its
 * call has locations (400 sandbox_limit).
 */
import { DomainError, invalidRequest } from '../errors.js';
import type { Point, TravelMatrix } from '../geo/index.js';
import { isAddress, isIndex, type CoordinatesLocation } from './location-schema.js';
import type { LabelledLocation, ResolvedLocation } from './locations.js';
import type { Located } from './steps.js';

export interface GivenMatrix {
  durations: readonly (readonly number[])[];
  distances?: readonly (readonly number[])[];
}

/** The fields of a paid call's body that say where its travel times come from. */
export interface CallTravel {
  matrix?: GivenMatrix;
  locations?: readonly CoordinatesLocation[];
  geometry?: boolean;
  avoidTolls?: boolean;
}

/** `stops[3] (id "a")` → `stops[3]`: the path of a labelled location. */
const pathOf = (l: LabelledLocation): string => l.label.split(' (')[0]!;

/** The checks of a call's matrix, its `locations` and its locations' indices; `sandbox`: a test key's call. */
export function checkCallTravel(travel: CallTravel, labelled: readonly LabelledLocation[], sandbox: boolean): void {
  const { matrix } = travel;
  if (!matrix) {
    if (travel.locations !== undefined)
      throw invalidRequest(
        'locations gives the coordinates of the rows of a matrix, but the call has no matrix: send "matrix" too, or give each location its own latitude and longitude and leave locations out',
        'locations',
      );
    const indexed = labelled.find((l) => isIndex(l.location));
    if (indexed)
      throw invalidRequest(
        `${indexed.label} has an index but the call has no matrix: send "matrix": {"durations": [[…], …]} with one row per index, or give ${pathOf(indexed)} its latitude and longitude`,
        `${pathOf(indexed)}.index`,
      );
    return;
  }
  const rows = matrix.durations.length;
  checkSquare('matrix.durations', matrix.durations, rows);
  if (matrix.distances !== undefined) {
    if (matrix.distances.length !== rows)
      throw invalidRequest(
        `matrix.distances has ${matrix.distances.length} rows but matrix.durations has ${rows}: both are over the same places, so they are the same size`,
        'matrix.distances',
      );
    checkSquare('matrix.distances', matrix.distances, rows);
  }
  if (travel.locations !== undefined && travel.locations.length !== rows)
    throw invalidRequest(
      `locations has ${travel.locations.length} entries but matrix.durations has ${rows} rows: give one {"latitude", "longitude"} per row, in row order`,
      'locations',
    );
  if (travel.geometry === true && travel.locations === undefined)
    throw invalidRequest(
      'geometry needs the coordinates of the places: with a matrix, send locations (one {"latitude", "longitude"} per row of matrix.durations), or leave geometry out',
      'geometry',
    );
  if (travel.avoidTolls === true)
    throw invalidRequest(
      'avoidTolls asks the routing engine to avoid toll roads, but with a matrix no engine is asked: build the matrix without tolls and leave avoidTolls out',
      'avoidTolls',
    );
  for (const l of labelled) {
    if (!isIndex(l.location)) {
      const what = isAddress(l.location) ? 'an address' : 'coordinates';
      throw invalidRequest(
        `${l.label} has ${what} but the call has a matrix: with a matrix every location is {"index": k}, a row of matrix.durations (its coordinates go in locations[k])`,
        pathOf(l),
      );
    }
    if (l.location.index >= rows)
      throw invalidRequest(
        `${pathOf(l)}.index is ${l.location.index} but matrix.durations has ${rows} rows: use an index from 0 to ${rows - 1}`,
        `${pathOf(l)}.index`,
      );
  }
  if (sandbox && rows > labelled.length)
    throw new DomainError(
      'sandbox_limit',
      `Test keys accept a matrix of at most as many rows as the call has locations (${labelled.length} here: its stops, starts and ends); this one has ${rows}. Send only the rows the call uses, or use a live key.`,
    );
}

function checkSquare(field: string, table: readonly (readonly number[])[], rows: number): void {
  table.forEach((row, i) => {
    if (row.length !== rows)
      throw invalidRequest(
        `${field}[${i}] has ${row.length} values but the matrix has ${rows} rows: it is square, row i and column j being the travel from place i to place j`,
        `${field}[${i}]`,
      );
  });
}

/**
 * The locations of a call with a matrix, resolved: each point is its row's coordinates (null without
 * `locations`), each distinct index a place (in the order first met), and the travel between the places is
 * read from the matrix (`estimate` gives distances from coordinates when it has none).
 */
export function locateInMatrix(
  labelled: readonly LabelledLocation[],
  travel: CallTravel & { matrix: GivenMatrix },
  estimate: (from: Point, to: Point) => number,
): Located {
  const placeOfRow = new Map<number, number>();
  const rows: number[] = [];
  const placeOf: number[] = [];
  const pointOf = (row: number): Point | null => {
    const at = travel.locations?.[row];
    return at ? { latitude: at.latitude, longitude: at.longitude } : null;
  };
  const locations = labelled.map(({ location, ...base }): ResolvedLocation => {
    if (!isIndex(location)) throw new Error(`${base.label} has no index: checkCallTravel lets no such call through`);
    if (!placeOfRow.has(location.index)) {
      placeOfRow.set(location.index, rows.length);
      rows.push(location.index);
    }
    placeOf.push(placeOfRow.get(location.index)!);
    return { ...base, point: pointOf(location.index) };
  });
  return { locations, places: rows.map(pointOf), placeOf, given: givenMatrixAt(travel, rows, estimate) };
}

/**
 * The caller's matrix between `rows` (the places' rows), in whole seconds and metres, the diagonal 0. Without
 * distances, `estimate(from, to)` gives them from `locations` (the rows' points); without those, 0.
 */
function givenMatrixAt(
  { matrix, locations }: CallTravel & { matrix: GivenMatrix },
  rows: readonly number[],
  estimate: (from: Point, to: Point) => number,
): TravelMatrix {
  const pick = (cell: (from: number, to: number) => number): number[][] =>
    rows.map((from, a) => rows.map((to, b) => (a === b ? 0 : Math.round(cell(from, to)))));
  const distances = matrix.distances;
  return {
    durationsS: pick((from, to) => matrix.durations[from]![to]!),
    distancesM: distances
      ? pick((from, to) => distances[from]![to]!)
      : pick((from, to) => (locations ? estimate(locations[from]!, locations[to]!) : 0)),
  };
}
