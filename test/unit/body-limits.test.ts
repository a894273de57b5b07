/**
 * The body limit of a paid endpoint is its largest valid request (src/http/body-size.ts): a request at every
 * maximum of the schema at once, pretty-printed, passes validation and fits; the limit is not much larger.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { largestValidBodyBytes } from '../../src/http/body-size.js';
import { optimizeRequestSchema } from '../../src/api/optimize/schema.js';
import { validateOptimizeRequest } from '../../src/api/optimize/validate.js';
import { MAX_DIMENSIONS, MAX_PLAN_STOPS, MAX_PLAN_VEHICLES, planRequestSchema } from '../../src/api/plans/schema.js';
import { validatePlanRequest } from '../../src/api/plans/validate.js';
import { MAX_MATRIX_ROWS } from '../../src/calls/matrix-schema.js';

const long = (prefix: string, length: number): string => prefix.padEnd(length, 'x');
const address = (i: number) => ({
  street: long(`${i} rue`, 500),
  postalCode: long('75004', 500),
  city: long('Paris', 500),
});
const stop = (i: number) => ({
  id: long(`stop-${i}-`, 100),
  ...address(i),
  deadline: '23:59',
  serviceSeconds: 3599.123456789012,
});

/** As a client that pretty-prints with 4 spaces and CRLF line ends writes it. */
const pretty = (body: unknown): number => Buffer.byteLength(JSON.stringify(body, null, 4).replace(/\n/g, '\r\n'));

const largestPlan = () => {
  const vehicles = Array.from({ length: MAX_PLAN_VEHICLES }, (_, v) => ({
    id: long(`van-${v}-`, 100),
    start: address(v),
    end: address(v + 1),
    shift: { start: '06:00', end: '21:30' },
    capacity: Array.from({ length: MAX_DIMENSIONS }, () => 1_000_000_000),
    maxStops: MAX_PLAN_STOPS,
  }));
  return {
    vehicles,
    stops: Array.from({ length: MAX_PLAN_STOPS }, (_, i) => ({
      ...stop(i),
      notBefore: '06:30',
      demand: Array.from({ length: MAX_DIMENSIONS }, () => 999_999_999),
      allowedVehicles: vehicles.map((v) => v.id),
    })),
    avoidTolls: false,
    departureTime: '2026-06-01T08:00:00.123456789+02:00',
  };
};

/** A full own matrix of 12-character numbers, and the plan of the largest size that uses it (every place an index). */
const largestMatrixPlan = () => {
  const cell = 999_999.12345; // 12 characters
  const table = Array.from({ length: MAX_MATRIX_ROWS }, () => Array.from({ length: MAX_MATRIX_ROWS }, () => cell));
  const plan = largestPlan();
  return {
    ...plan,
    vehicles: plan.vehicles.map((v, i) => ({ ...v, start: { index: 2 * i }, end: { index: 2 * i + 1 } })),
    stops: plan.stops.map(({ street: _s, postalCode: _p, city: _c, ...s }, i) => ({ ...s, index: 100 + i })),
    matrix: { durations: table, distances: table },
    locations: Array.from({ length: MAX_MATRIX_ROWS }, () => ({
      latitude: -89.123456789012,
      longitude: 179.123456789,
    })),
    avoidTolls: false,
    geometry: true,
  };
};

/** Pretty-printed as above, except the matrix's tables: a row per line, each row compact (docs/api.md "Limits"). */
const prettyWithTables = (body: { matrix: { durations: number[][]; distances: number[][] } }): number => {
  const table = (rows: number[][]) =>
    `[\r\n${rows.map((r) => `            ${JSON.stringify(r)}`).join(',\r\n')}\r\n        ]`;
  const matrix = `{\r\n        "durations": ${table(body.matrix.durations)},\r\n        "distances": ${table(body.matrix.distances)}\r\n    }`;
  const text = JSON.stringify({ ...body, matrix: 'MATRIX' }, null, 4)
    .replace(/\n/g, '\r\n')
    .replace('"MATRIX"', matrix);
  return Buffer.byteLength(text);
};

/** BODY_BYTES_IN_FLIGHT's default: no body limit is above it (src/http/body.ts authenticatedLimit). */
const IN_FLIGHT = 64 * 1024 * 1024;

test('the largest valid synchronous plan, pretty-printed, fits the plans limit; so does the largest with a full own matrix; the asynchronous limits make the schema larger than the in-flight budget, which then applies', () => {
  const body = largestPlan();
  validatePlanRequest(body);
  const schemaLargest = largestValidBodyBytes(planRequestSchema);
  assert.ok(schemaLargest > IN_FLIGHT, '10,000 stops each listing 500 vehicles');
  const limit = Math.min(schemaLargest, IN_FLIGHT);
  const size = pretty(body);
  assert.ok(size <= limit, `${size} > ${limit}`);
  const withMatrix = largestMatrixPlan();
  validatePlanRequest(withMatrix);
  const matrixSize = prettyWithTables(withMatrix);
  assert.ok(matrixSize <= limit, `${matrixSize} > ${limit}`);
  // a full matrix pretty-printed one number a line is past it: docs/api.md says to send a big matrix compact
  assert.ok(pretty(withMatrix) > limit);
});

test('an asynchronous plan of 10,000 stops and 500 vans, written as clients do, is far within the plans limit', () => {
  const vehicles = Array.from({ length: 500 }, (_, v) => ({
    id: `van-${v}`,
    start: { latitude: 48.85, longitude: 2.35 },
    shift: { start: '07:00', end: '19:00' },
    capacity: [1200, 120],
  }));
  const body = {
    vehicles,
    stops: Array.from({ length: 10_000 }, (_, i) => ({
      id: `stop-${i}`,
      latitude: 48.8 + i / 100_000,
      longitude: 2.3,
      serviceSeconds: 180,
      demand: [12, 1],
      notBefore: '09:30',
    })),
  };
  validatePlanRequest(body);
  assert.ok(pretty(body) < 5_000_000 && pretty(body) < Math.min(largestValidBodyBytes(planRequestSchema), IN_FLIGHT));
});

test('the largest valid optimize request fits its limit, at most 10 % larger, and below the plans limit', () => {
  const body = {
    start: address(0),
    end: address(1),
    stops: Array.from({ length: 200 }, (_, i) => stop(i)),
    avoidTolls: true,
    departureTime: '2026-06-01T08:00:00+02:00',
  };
  validateOptimizeRequest(body);
  const limit = largestValidBodyBytes(optimizeRequestSchema);
  const size = pretty(body);
  assert.ok(size <= limit, `${size} / ${limit}`);
  assert.ok(largestValidBodyBytes(planRequestSchema) > limit);
});

test('1000 stops, each listing 50 vehicle ids of 20 characters (1.2 MB), are well within the plans limit', () => {
  const vehicles = Array.from({ length: 50 }, (_, v) => ({
    id: long(`v${v}-`, 20),
    start: { latitude: 48.85, longitude: 2.35 },
  }));
  const body = {
    vehicles,
    stops: Array.from({ length: 1000 }, (_, i) => ({
      id: `s${i}`,
      latitude: 48.8 + i / 10_000,
      longitude: 2.3,
      allowedVehicles: vehicles.map((v) => v.id),
    })),
  };
  validatePlanRequest(body);
  assert.ok(Buffer.byteLength(JSON.stringify(body)) > 1_100_000);
  assert.ok(pretty(body) < largestValidBodyBytes(planRequestSchema));
});

test('a schema that bounds nothing has no largest request: sizing it throws, naming the field', () => {
  const open = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
  assert.throws(() => largestValidBodyBytes(open), /a has no maxLength/);
  const list = {
    type: 'object',
    properties: { xs: { type: 'array', items: { type: 'boolean' } } },
    additionalProperties: false,
  };
  assert.throws(() => largestValidBodyBytes(list), /xs has no maxItems/);
  assert.throws(() => largestValidBodyBytes({ type: 'object', properties: {} }), /open object/);
  const repeated = { type: 'string', pattern: '^\\d+$' };
  assert.throws(() => largestValidBodyBytes(repeated), /does not bound/);
  assert.equal(largestValidBodyBytes({ type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' }), 2 + 25);
});

test('the sizes of the two endpoints (docs/api.md "Limits" quotes them)', () => {
  assert.equal(largestValidBodyBytes(optimizeRequestSchema), 32_005_281);
  // plans: 10,000 stops × 500 vehicles at every maximum, past BODY_BYTES_IN_FLIGHT (64 MiB), which then applies
  assert.equal(largestValidBodyBytes(planRequestSchema), 671_900_779);
});

test('stops and shipments share the plan limit: 500 shipments at every maximum fit it, and so does a mix', () => {
  const plan = largestPlan();
  const end = (i: number) => ({
    ...address(i),
    deadline: '23:59',
    serviceSeconds: 3599.123456789012,
    notBefore: '00:30',
    timeWindows: Array.from({ length: 5 }, (_, k) => ({ start: `${10 + k}:00`, end: `${10 + k}:30` })),
  });
  const shipment = (i: number) => ({
    id: long(`ship-${i}-`, 100),
    pickup: end(i),
    delivery: end(i + 1),
    demand: Array.from({ length: MAX_DIMENSIONS }, () => 999_999_999),
    allowedVehicles: plan.vehicles.map((v) => v.id),
    priority: 100,
  });
  const limit = largestValidBodyBytes(planRequestSchema);
  const shipmentsOnly = { ...plan, stops: [], shipments: Array.from({ length: 500 }, (_, i) => shipment(i)) };
  validatePlanRequest(shipmentsOnly);
  assert.ok(pretty(shipmentsOnly) <= limit, `${pretty(shipmentsOnly)} > ${limit}`);
  const mix = { ...plan, stops: plan.stops.slice(0, 998), shipments: [shipment(0)] };
  validatePlanRequest(mix);
  assert.ok(pretty(mix) <= limit, `${pretty(mix)} > ${limit}`);
});
