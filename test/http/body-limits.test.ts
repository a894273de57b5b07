/**
 * Body limits read from the schemas (src/http/body-size.ts), and messages that name the fix, over HTTP: a plan
 * the schema allows is never refused for its size, a 413 names its limit, its endpoint and what to shrink.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { largestValidBodyBytes } from '../../src/http/body-size.js';
import { optimizeRequestSchema } from '../../src/api/optimize/schema.js';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const vans = (count: number, idLength = 5) =>
  Array.from({ length: count }, (_, v) => ({ id: `v${v}-`.padEnd(idLength, 'x'), start: PARIS_START }));

test('1000 stops each listing 50 vehicle ids of 20 characters (1.2 MB) are read and judged, not refused for their size', async () => {
  const key = await server.createKey('test');
  const vehicles = vans(50, 20);
  const body = {
    vehicles,
    stops: coordinateStops(1000).map((s) => ({ ...s, allowedVehicles: vehicles.map((v) => v.id) })),
  };
  assert.ok(JSON.stringify(body).length > 1_200_000);
  const res = await server.request('POST', '/api/v1/plans', { key, body });
  // read whole and valid: the sandbox's stop cap is what refuses it
  assert.deepEqual([res.status, res.body.error], [400, 'sandbox_limit']);
});

test('past its limit, a body is 413 naming the limit, the endpoint and what to shrink', async () => {
  const key = await server.createKey('live', 10);
  const limit = largestValidBodyBytes(optimizeRequestSchema);
  const body = { start: PARIS_START, stops: coordinateStops(3), pad: ' '.repeat(limit) };
  const res = await server.request('POST', '/api/v1/optimize', { key, rawBody: JSON.stringify(body) });
  assert.equal(res.status, 413);
  assert.equal(
    res.body.message,
    `The request body is too large: at most ${limit} bytes for POST /api/v1/optimize; send fewer stops (at most 200), shorter ids and addresses, or a smaller matrix (one row per place of the call).`,
  );
  // the same body fits the plans limit: read whole, then refused by the schema
  const plan = await server.request('POST', '/api/v1/plans', { key, rawBody: JSON.stringify(body) });
  assert.deepEqual([plan.status, plan.body.error], [400, 'invalid_request']);
  assert.equal((await server.ledgerOf(key)).balance, 10);
});

test('BODY_LIMIT_BYTES sets one limit for every endpoint; BODY_BYTES_IN_FLIGHT caps the derived one', async () => {
  const small = await startTestServer({ env: { BODY_LIMIT_BYTES: '4096' } });
  const capped = await startTestServer({ env: { BODY_BYTES_IN_FLIGHT: '1048576' } });
  try {
    const body = { vehicles: vans(1), stops: coordinateStops(60) };
    const refused = await small.request('POST', '/api/v1/plans', { key: await small.createKey('test'), body });
    assert.deepEqual([refused.status, refused.body.error], [413, 'payload_too_large']);
    assert.match(
      refused.body.message,
      /^The request body is too large: at most 4096 bytes for POST \/api\/v1\/plans; send fewer stops or vehicles/,
    );
    const vehicles = vans(50, 20);
    const big = {
      vehicles,
      stops: coordinateStops(1000).map((s) => ({ ...s, allowedVehicles: vehicles.map((v) => v.id) })),
    };
    const res = await capped.request('POST', '/api/v1/plans', { key: await capped.createKey('test'), body: big });
    assert.equal(res.status, 413);
    assert.match(res.body.message, /at most 1048576 bytes for POST \/api\/v1\/plans/);
  } finally {
    await small.close();
    await capped.close();
  }
});

test('a JSON body that is not an object says so and names the fields to send', async () => {
  const key = await server.createKey('test');
  const nullBody = await server.request('POST', '/api/v1/plans', { key, rawBody: 'null' });
  assert.deepEqual([nullBody.status, nullBody.body.error], [400, 'invalid_request']);
  assert.equal(
    nullBody.body.message,
    'The request body is JSON null, not an object: send a JSON object with "vehicles" and "stops".',
  );
  const number = await server.request('POST', '/api/v1/optimize', { key, rawBody: '42' });
  assert.equal(
    number.body.message,
    'The request body is a JSON number, not an object: send a JSON object with "start" and "stops".',
  );
  const broken = await server.request('POST', '/api/v1/optimize', { key, rawBody: '{"start": ' });
  assert.equal(broken.body.message, 'The request body is not valid JSON: send a JSON object with "start" and "stops".');
});

test('numbers: the message gives the range, and says why 1e400, "NaN" and 1.5 are not such numbers', async () => {
  const key = await server.createKey('test');
  const overflow = await server.request('POST', '/api/v1/optimize', {
    key,
    rawBody: `{"start": {"latitude": 1e400, "longitude": 2.35}, "stops": ${JSON.stringify(coordinateStops(2))}}`,
  });
  assert.deepEqual([overflow.status, overflow.body.param], [400, 'start.latitude']);
  assert.match(
    overflow.body.message,
    /^start\.latitude must be a number from -90 to 90: .*1e400.*send a finite number$/,
  );
  const nan = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: { latitude: 'NaN', longitude: 2.35 }, stops: coordinateStops(2) },
  });
  assert.match(
    nan.body.message,
    /^start\.latitude must be a number from -90 to 90, not the string "NaN": strings are not numbers/,
  );
  const fraction = await server.request('POST', '/api/v1/plans', {
    key,
    body: {
      vehicles: [{ ...vans(1)[0], capacity: [10] }],
      stops: coordinateStops(2).map((s) => ({ ...s, demand: [1.5] })),
    },
  });
  assert.deepEqual(
    [fraction.body.param, fraction.body.message],
    ['stops[0].demand[0]', 'stops[0].demand[0] must be a whole number from 0 to 1000000000, not 1.5'],
  );
  const empty = await server.request('POST', '/api/v1/plans', {
    key,
    body: { vehicles: [{ ...vans(1)[0], capacity: [] }], stops: coordinateStops(2) },
  });
  assert.equal(empty.body.message, 'vehicles[0].capacity must contain at least 1 item, e.g. [500, 40]');
});

test('a departureTime outside the window names its param', async () => {
  const key = await server.createKey('test');
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(2), departureTime: '2000-01-01T08:00:00Z' },
  });
  assert.deepEqual([res.status, res.body.param], [400, 'departureTime']);
  assert.match(res.body.message, /^departureTime must be within 366 days of now/);
});

test("a plan's Idempotency-Key sent to optimize: the conflict names another endpoint as a cause", async () => {
  const key = await server.createKey('live', 10);
  const headers = { 'Idempotency-Key': 'shared-key' };
  const planned = await server.request('POST', '/api/v1/plans', {
    key,
    body: { vehicles: vans(1), stops: coordinateStops(2) },
    headers,
  });
  assert.equal(planned.status, 200);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(2) },
    headers,
  });
  assert.deepEqual([res.status, res.body.error], [409, 'idempotency_conflict']);
  assert.match(res.body.message, /the same body on another endpoint/);
  assert.match(res.body.message, /Send a new Idempotency-Key/);
});
