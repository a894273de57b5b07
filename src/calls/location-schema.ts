/**
 * The parts of a paid call's body that every endpoint takes alike: a Location and a Stop exactly as the
 * spec defines them, avoidTolls and departureTime. optimize's request is made of them; plans spread the
 * same objects (never copies), so the two endpoints cannot drift apart. The same objects validate
 * requests and feed the OpenAPI document (which names them as components).
 *
 * A Location, and a Stop, is a `oneOf` of closed objects: coordinates or an address, and (extension, with the
 * caller's own `matrix`: src/calls/matrix-schema.ts) the same shape as the coordinates with `index`, a row of the
 * matrix, in their place; every shape that takes coordinates takes an index so (plans' stops too). Generated clients
 * turn that into a plain union type; so does FromSchema (json-schema-to-ts) for the TypeScript types below,
 * which are read from the schema rather than written a second time (the parts keep their literal types:
 * `as const` and const type parameters). The departure-time format is registered where schemas are
 * compiled (src/http/validate.ts).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { geometrySchema, indexSchema, matrixLocationsOf, matrixSchema } from './matrix-schema.js';

export const DEADLINE_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d$';

/** A schema for a time of day `HH:MM` (Europe/Paris), with its description and an example. */
export const timeOfDaySchema = (description: string, example: string) =>
  ({
    type: 'string',
    pattern: DEADLINE_PATTERN,
    'x-message': 'must be a time HH:MM (24-hour, Europe/Paris)',
    description,
    examples: [example],
  }) as const;

const latitude = {
  type: 'number',
  minimum: -90,
  maximum: 90,
  'x-message': 'must be a number from -90 to 90',
  description: 'Decimal degrees, WGS 84.',
  examples: [48.8566],
} as const;
const longitude = {
  type: 'number',
  minimum: -180,
  maximum: 180,
  'x-message': 'must be a number from -180 to 180',
  description: 'Decimal degrees, WGS 84.',
  examples: [2.3522],
} as const;
const addressField = (description: string, example: string) =>
  ({ type: 'string', minLength: 1, maxLength: 500, description, examples: [example] }) as const;

const coordinateProperties = { latitude, longitude };
const addressProperties = {
  street: addressField('House number and street.', '10 rue de Rivoli'),
  postalCode: addressField('Postal code.', '75004'),
  city: addressField('City or commune.', 'Paris'),
};

const stopExtras = {
  id: {
    type: 'string',
    maxLength: 100,
    description: 'Caller-chosen id, unique within one call (at most 100 characters).',
    examples: ['parcel-42'],
  },
  deadline: timeOfDaySchema(
    'Latest delivery time, HH:MM 24-hour, Europe/Paris local time, on the Paris calendar day of departure.',
    '14:30',
  ),
  serviceSeconds: {
    type: 'number',
    minimum: 0,
    maximum: 3600,
    'x-message': 'must be a number of seconds from 0 to 3600',
    description: 'Time spent at the stop, in seconds (0 to 3600).',
    examples: [120],
  },
} as const;

/** One closed object: exactly these properties, these required. */
const closed = <const P extends Record<string, object>, const R extends ReadonlyArray<keyof P & string>>(
  title: string,
  description: string,
  properties: P,
  required: R,
) =>
  ({
    title,
    description,
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  }) as const;

export const coordinatesSchema = closed('Coordinates', 'A point given by its coordinates.', coordinateProperties, [
  'latitude',
  'longitude',
]);
export const addressSchema = closed(
  'Address',
  'A French street address; the service geocodes it (live keys only).',
  addressProperties,
  ['street', 'postalCode', 'city'],
);
export const stopWithCoordinatesSchema = closed(
  'StopWithCoordinates',
  'A stop given by its coordinates.',
  {
    id: stopExtras.id,
    ...coordinateProperties,
    deadline: stopExtras.deadline,
    serviceSeconds: stopExtras.serviceSeconds,
  },
  ['id', 'latitude', 'longitude'],
);
export const stopWithAddressSchema = closed(
  'StopWithAddress',
  'A stop given by its street address (live keys only).',
  { id: stopExtras.id, ...addressProperties, deadline: stopExtras.deadline, serviceSeconds: stopExtras.serviceSeconds },
  ['id', 'street', 'postalCode', 'city'],
);

type WithoutCoordinates<R extends readonly string[]> = R extends readonly [
  infer H extends string,
  ...infer T extends readonly string[],
]
  ? H extends 'latitude' | 'longitude'
    ? WithoutCoordinates<T>
    : [H, ...WithoutCoordinates<T>]
  : [];
type IndexTitle<T extends string> = T extends `${infer A}Coordinates${infer B}` ? `${A}MatrixIndex${B}` : T;
interface ByCoordinates {
  title: string;
  description: string;
  properties: { latitude: object; longitude: object };
  required: readonly string[];
}
type ByMatrixIndex<C extends ByCoordinates> = Omit<C, 'title' | 'description' | 'properties' | 'required'> & {
  title: IndexTitle<C['title']>;
  description: string;
  properties: {
    [K in Exclude<keyof C['properties'], 'latitude' | 'longitude'> | 'index']: K extends 'index'
      ? typeof indexSchema
      : C['properties'][K & keyof C['properties']];
  };
  required: [...WithoutCoordinates<C['required']>, 'index'];
};

/** Extension: a shape by coordinates with `index` (a row of the call's matrix) in place of latitude and longitude. */
export function byMatrixIndex<const C extends ByCoordinates>(byCoordinates: C): ByMatrixIndex<C> {
  const properties = Object.fromEntries(
    Object.entries(byCoordinates.properties).flatMap(([name, schema]): Array<[string, object]> =>
      name === 'latitude' ? [['index', indexSchema]] : name === 'longitude' ? [] : [[name, schema]],
    ),
  );
  return {
    ...byCoordinates,
    title: byCoordinates.title.replace('Coordinates', 'MatrixIndex'),
    description: `Extension: ${byCoordinates.description.replace('by its coordinates', "by `index`, a row of the call's `matrix`")}`,
    properties,
    required: [...byCoordinates.required.filter((r) => r !== 'latitude' && r !== 'longitude'), 'index'],
  } as unknown as ByMatrixIndex<C>;
}

/**
 * Exactly one of a shape by coordinates, the same by a matrix index (extension) and a shape by address (a
 * Location, a Stop, a plan's stop). The address stays last: a location with none of the shapes' own fields is
 * told what an address needs (src/http/validate.ts).
 */
export const eitherShape = <const C extends ByCoordinates, const A extends object>(
  title: string,
  description: string,
  byCoordinates: C,
  byAddress: A,
) =>
  ({
    title,
    description,
    oneOf: [byCoordinates, byMatrixIndex(byCoordinates), byAddress],
    'x-message':
      'must be either coordinates (latitude, longitude), a row of the matrix (index, with a matrix) or an address (street, postalCode, city), not both',
  }) as const;

export const locationJsonSchema = eitherShape(
  'Location',
  "Exactly one of two shapes: coordinates {latitude, longitude} or an address {street, postalCode, city}; extension: or {index}, a row of the call's matrix.",
  coordinatesSchema,
  addressSchema,
);
export const stopJsonSchema = eitherShape(
  'Stop',
  'A Location (either shape) plus its id, an optional deadline and an optional service time.',
  stopWithCoordinatesSchema,
  stopWithAddressSchema,
);

const avoidTollsSchema = {
  type: 'boolean',
  description: 'Avoid toll roads where the routing engine supports it. Default false.',
} as const;

const departureTimeSchema = {
  type: 'string',
  format: 'departure-time',
  maxLength: 64,
  'x-message':
    'must be an ISO 8601 date-time, e.g. 2026-06-01T08:00:00+02:00 (without an offset it is Europe/Paris local time)',
  description:
    'ISO 8601 date-time (YYYY-MM-DDTHH:MM[:SS[.fraction]] with an optional Z or ±HH:MM). Without an offset it is Europe/Paris local time. Default: now. Must lie within DEPARTURE_WINDOW_DAYS (default 366) days before or after now.',
  examples: ['2026-06-01T08:00:00+02:00'],
} as const;

/** The options of every paid call's body, beside its locations (the last three: extensions). */
export const callOptionsProperties = {
  avoidTolls: avoidTollsSchema,
  departureTime: departureTimeSchema,
  matrix: matrixSchema,
  locations: matrixLocationsOf(coordinatesSchema),
  geometry: geometrySchema,
};

export type CoordinatesLocation = FromSchema<typeof coordinatesSchema>;
export type AddressLocation = FromSchema<typeof addressSchema>;
export type Location = FromSchema<typeof locationJsonSchema>;
export type Stop = FromSchema<typeof stopJsonSchema>;

export type IndexLocation = FromSchema<ReturnType<typeof byMatrixIndex<typeof coordinatesSchema>>>;

export const isAddress = (location: Location): location is AddressLocation => 'street' in location;
export const isIndex = (location: Location): location is IndexLocation => 'index' in location;
