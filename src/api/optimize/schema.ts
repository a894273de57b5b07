/**
 * OptimizeRequest exactly as the spec defines it. The same schema validates
 * requests and feeds the OpenAPI document (which names its parts as components).
 *
 * A Location, and a Stop, is a `oneOf` of two closed objects: coordinates or
 * an address. Generated clients turn that into a plain union type; so does
 * FromSchema (json-schema-to-ts) for the TypeScript types below, which are read
 * from the schema rather than written a second time (the parts keep their
 * literal types: `as const` and const type parameters).
 */
import type { FromSchema } from 'json-schema-to-ts';

export const DEADLINE_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d$';

const latitude = {
  type: 'number', minimum: -90, maximum: 90, 'x-message': 'must be a number from -90 to 90',
  description: 'Decimal degrees, WGS 84.', examples: [48.8566],
} as const;
const longitude = {
  type: 'number', minimum: -180, maximum: 180, 'x-message': 'must be a number from -180 to 180',
  description: 'Decimal degrees, WGS 84.', examples: [2.3522],
} as const;
const addressField = (description: string, example: string) => ({ type: 'string', minLength: 1, maxLength: 500, description, examples: [example] }) as const;

const coordinateProperties = { latitude, longitude };
const addressProperties = {
  street: addressField('House number and street.', '10 rue de Rivoli'),
  postalCode: addressField('Postal code.', '75004'),
  city: addressField('City or commune.', 'Paris'),
};

const stopExtras = {
  id: { type: 'string', maxLength: 100, description: 'Caller-chosen id, unique within one call (at most 100 characters).', examples: ['parcel-42'] },
  deadline: {
    type: 'string',
    pattern: DEADLINE_PATTERN,
    'x-message': 'must be a time HH:MM (24-hour, Europe/Paris)',
    description: 'Latest delivery time, HH:MM 24-hour, Europe/Paris local time, on the Paris calendar day of departure.',
    examples: ['14:30'],
  },
  serviceSeconds: {
    type: 'number', minimum: 0, maximum: 3600, 'x-message': 'must be a number of seconds from 0 to 3600',
    description: 'Time spent at the stop, in seconds (0 to 3600).', examples: [120],
  },
} as const;

/** One closed object: exactly these properties, these required. */
const closed = <const P extends Record<string, object>, const R extends ReadonlyArray<keyof P & string>>(title: string, description: string, properties: P, required: R) => ({
  title, description, type: 'object', properties, required, additionalProperties: false,
}) as const;

export const coordinatesSchema = closed('Coordinates', 'A point given by its coordinates.', coordinateProperties, ['latitude', 'longitude']);
export const addressSchema = closed('Address', 'A French street address; the service geocodes it (live keys only).', addressProperties, ['street', 'postalCode', 'city']);
export const stopWithCoordinatesSchema = closed('StopWithCoordinates', 'A stop given by its coordinates.',
  { id: stopExtras.id, ...coordinateProperties, deadline: stopExtras.deadline, serviceSeconds: stopExtras.serviceSeconds }, ['id', 'latitude', 'longitude']);
export const stopWithAddressSchema = closed('StopWithAddress', 'A stop given by its street address (live keys only).',
  { id: stopExtras.id, ...addressProperties, deadline: stopExtras.deadline, serviceSeconds: stopExtras.serviceSeconds }, ['id', 'street', 'postalCode', 'city']);

const BOTH_SHAPES = 'must be either coordinates (latitude, longitude) or an address (street, postalCode, city), not both';

export const locationJsonSchema = {
  title: 'Location',
  description: 'Exactly one of two shapes: coordinates {latitude, longitude} or an address {street, postalCode, city}.',
  oneOf: [coordinatesSchema, addressSchema],
  'x-message': BOTH_SHAPES,
} as const;
export const stopJsonSchema = {
  title: 'Stop',
  description: 'A Location (either shape) plus its id, an optional deadline and an optional service time.',
  oneOf: [stopWithCoordinatesSchema, stopWithAddressSchema],
  'x-message': BOTH_SHAPES,
} as const;

export const optimizeRequestSchema = {
  $id: 'OptimizeRequest',
  title: 'OptimizeRequest',
  description: 'A start, an optional end (return) point and 2 to 200 stops.',
  type: 'object',
  properties: {
    start: locationJsonSchema,
    end: locationJsonSchema,
    stops: { type: 'array', minItems: 2, maxItems: 200, items: stopJsonSchema, description: '2 to 200 stops; their ids are unique within the call.' },
    avoidTolls: { type: 'boolean', description: 'Avoid toll roads where the routing engine supports it. Default false.' },
    departureTime: {
      type: 'string',
      format: 'departure-time',
      maxLength: 64,
      'x-message': 'must be an ISO 8601 date-time, e.g. 2026-06-01T08:00:00+02:00 (without an offset it is Europe/Paris local time)',
      description: 'ISO 8601 date-time (YYYY-MM-DDTHH:MM[:SS[.fraction]] with an optional Z or ±HH:MM). Without an offset it is Europe/Paris local time. Default: now. Must lie within DEPARTURE_WINDOW_DAYS (default 366) days before or after now.',
      examples: ['2026-06-01T08:00:00+02:00'],
    },
  },
  required: ['start', 'stops'],
  additionalProperties: false,
} as const;

export type CoordinatesLocation = FromSchema<typeof coordinatesSchema>;
export type AddressLocation = FromSchema<typeof addressSchema>;
export type Location = FromSchema<typeof locationJsonSchema>;
export type Stop = FromSchema<typeof stopJsonSchema>;
export type OptimizeRequest = FromSchema<typeof optimizeRequestSchema>;

export const isAddress = (location: Location): location is AddressLocation => 'street' in location;
