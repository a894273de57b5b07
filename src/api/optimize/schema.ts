/**
 * OptimizeRequest exactly as the spec defines it. The same schema validates
 * requests and feeds the OpenAPI document.
 */
export const DEADLINE_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d$';

const latitude = { type: 'number', minimum: -90, maximum: 90, 'x-message': 'must be a number from -90 to 90' };
const longitude = { type: 'number', minimum: -180, maximum: 180, 'x-message': 'must be a number from -180 to 180' };
const addressField = { type: 'string', minLength: 1, maxLength: 500 };

const coordinateProperties = { latitude, longitude };
const addressProperties = { street: addressField, postalCode: addressField, city: addressField };

const stopExtras = {
  id: { type: 'string', maxLength: 100, description: 'Caller-chosen id, unique within one call.' },
  deadline: {
    type: 'string',
    pattern: DEADLINE_PATTERN,
    'x-message': 'must be a time HH:MM (24-hour, Europe/Paris)',
    description: 'Latest delivery time, Europe/Paris local time, on the Paris calendar day of departure.',
    example: '14:30',
  },
  serviceSeconds: { type: 'number', minimum: 0, maximum: 3600, 'x-message': 'must be a number of seconds from 0 to 3600' },
};

const hasCoordinate = { anyOf: [{ required: ['latitude'] }, { required: ['longitude'] }] };
const hasAddressField = { anyOf: [{ required: ['street'] }, { required: ['postalCode'] }, { required: ['city'] }] };

/** A Location is exactly one shape: coordinates or an address. The shape is picked by the fields present. */
function locationSchema(extra: Record<string, object>, extraRequired: string[], description: string): object {
  return {
    type: 'object',
    description,
    not: { allOf: [hasCoordinate, hasAddressField] },
    'x-message': 'must be either coordinates (latitude, longitude) or an address (street, postalCode, city), not both',
    if: hasCoordinate,
    then: {
      properties: { ...coordinateProperties, ...extra },
      required: ['latitude', 'longitude', ...extraRequired],
      additionalProperties: false,
    },
    else: {
      properties: { ...addressProperties, ...extra },
      required: [...extraRequired, 'street', 'postalCode', 'city'],
      additionalProperties: false,
    },
  };
}

export const locationJsonSchema = locationSchema({}, [], 'Coordinates {latitude, longitude} or an address {street, postalCode, city}.');
export const stopJsonSchema = locationSchema(stopExtras, ['id'], 'A Location plus id, optional deadline and serviceSeconds.');

export const optimizeRequestSchema = {
  $id: 'OptimizeRequest',
  type: 'object',
  properties: {
    start: locationJsonSchema,
    end: locationJsonSchema,
    stops: { type: 'array', minItems: 2, maxItems: 200, items: stopJsonSchema },
    avoidTolls: { type: 'boolean', default: false },
    departureTime: {
      type: 'string',
      format: 'departure-time',
      maxLength: 64,
      'x-message': 'must be an ISO 8601 date-time, e.g. 2026-06-01T08:00:00+02:00 (without an offset it is Europe/Paris local time)',
      description: 'Departure instant; without an offset, Europe/Paris local time. Must lie within DEPARTURE_WINDOW_DAYS (default 366) days before or after now.',
    },
  },
  required: ['start', 'stops'],
  additionalProperties: false,
} as const;

export interface CoordinatesLocation { latitude: number; longitude: number }
export interface AddressLocation { street: string; postalCode: string; city: string }
export type Location = CoordinatesLocation | AddressLocation;
export type Stop = Location & { id: string; deadline?: string; serviceSeconds?: number };

export interface OptimizeRequest {
  start: Location;
  end?: Location;
  stops: Stop[];
  avoidTolls?: boolean;
  departureTime?: string;
}

export const isAddress = (location: Location): location is AddressLocation => 'street' in location;
