/**
 * Location and Stop are written as a `oneOf` of two closed objects (so that
 * generated clients get a union type). They must accept and refuse exactly
 * what the previous if/then/else form did: compared here on random values.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { locationJsonSchema, stopJsonSchema } from '../../src/calls/location-schema.js';
import { validateOptimizeRequest } from '../../src/api/optimize/validate.js';

const DEADLINE = '^([01]\\d|2[0-3]):[0-5]\\d$';
const latitude = { type: 'number', minimum: -90, maximum: 90 };
const longitude = { type: 'number', minimum: -180, maximum: 180 };
const addressField = { type: 'string', minLength: 1, maxLength: 500 };
const stopExtras = {
  id: { type: 'string', maxLength: 100 },
  deadline: { type: 'string', pattern: DEADLINE },
  serviceSeconds: { type: 'number', minimum: 0, maximum: 3600 },
};
const hasCoordinate = { anyOf: [{ required: ['latitude'] }, { required: ['longitude'] }] };
const hasAddressField = { anyOf: [{ required: ['street'] }, { required: ['postalCode'] }, { required: ['city'] }] };

/** The form the schema had before: the shape picked by the fields present. */
function previousForm(extra: Record<string, object>, extraRequired: string[]): object {
  return {
    type: 'object',
    not: { allOf: [hasCoordinate, hasAddressField] },
    if: hasCoordinate,
    then: {
      properties: { latitude, longitude, ...extra },
      required: ['latitude', 'longitude', ...extraRequired],
      additionalProperties: false,
    },
    else: {
      properties: { street: addressField, postalCode: addressField, city: addressField, ...extra },
      required: [...extraRequired, 'street', 'postalCode', 'city'],
      additionalProperties: false,
    },
  };
}

const ajv = new Ajv({ strict: false });
ajv.addVocabulary(['x-message']);
const previousLocation = ajv.compile(previousForm({}, []));
const previousStop = ajv.compile(previousForm(stopExtras, ['id']));
const currentLocation = ajv.compile(locationJsonSchema);
const currentStop = ajv.compile(stopJsonSchema);

const anyValue = fc.oneof(
  fc.double({ min: -200, max: 200, noNaN: true }),
  fc.constantFrom(-90, 90, -180, 180, 0, 3600, 3601),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', '09:30', '24:00', 'x'.repeat(101)),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const keys = [
  'latitude',
  'longitude',
  'street',
  'postalCode',
  'city',
  'id',
  'deadline',
  'serviceSeconds',
  'lat',
  'lng',
];
const candidate = fc.oneof(
  fc.dictionary(fc.constantFrom(...keys), anyValue, { maxKeys: 7 }),
  fc.record({ latitude: anyValue, longitude: anyValue }, { requiredKeys: [] }),
  fc.record({
    id: fc.string({ maxLength: 3 }),
    latitude: fc.double({ min: -95, max: 95, noNaN: true }),
    longitude: fc.double({ min: -185, max: 185, noNaN: true }),
  }),
  fc.record(
    {
      id: fc.string({ maxLength: 3 }),
      street: fc.string({ maxLength: 3 }),
      postalCode: fc.string({ maxLength: 3 }),
      city: fc.string({ maxLength: 3 }),
    },
    { requiredKeys: ['street'] },
  ),
  anyValue,
);

test('Location: the oneOf accepts exactly what the if/then/else form accepted', () => {
  fc.assert(
    fc.property(candidate, (value) => {
      assert.equal(currentLocation(value), previousLocation(value), JSON.stringify(value));
    }),
    { numRuns: 3000 },
  );
});

test('Stop: the oneOf accepts exactly what the if/then/else form accepted', () => {
  fc.assert(
    fc.property(candidate, (value) => {
      assert.equal(currentStop(value), previousStop(value), JSON.stringify(value));
    }),
    { numRuns: 3000 },
  );
});

test('the service validator agrees with the oneOf schema on whole requests', () => {
  fc.assert(
    fc.property(candidate, candidate, (start, stop) => {
      const body = { start, stops: [stop, { id: 'other-id-not-repeated', latitude: 1, longitude: 1 }] };
      let accepted = true;
      try {
        validateOptimizeRequest(body);
      } catch {
        accepted = false;
      }
      const unique = !(stop && typeof stop === 'object' && (stop as { id?: unknown }).id === 'other-id-not-repeated');
      assert.equal(accepted, currentLocation(start) && currentStop(stop) && unique, JSON.stringify(body));
    }),
    { numRuns: 2000 },
  );
});
