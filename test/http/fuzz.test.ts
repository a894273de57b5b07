/**
 * Property-based tests of POST /api/v1/optimize: whatever arrives, the answer
 * is a status the spec lists (or a documented extension) with the Error body
 * shape, never a 500, and a rejected call debits nothing.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { hashApiKey } from '../../src/billing/keys.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const ALLOWED = new Set([200, 400, 401, 402, 409, 413, 422, 429, 502, 503]);
let server: TestServer;
let live: string;
let liveId: number;

before(async () => {
  server = await startTestServer({
    env: { AUTH_FAILURES_PER_MINUTE: '1000000', SANDBOX_CALLS_PER_MINUTE: '100000', SANDBOX_STOPS_PER_DAY: '10000000' },
  });
  live = await server.createKey('live', 1_000_000);
  liveId = (await server.services.store.findKeyByHash(hashApiKey(live)))!.id;
});
after(async () => {
  await server.close();
});

async function balance(): Promise<number> {
  return (await server.services.store.findKeyByHash(hashApiKey(live)))!.balance;
}

function checkAnswer(status: number, body: any): void {
  assert.ok(ALLOWED.has(status), `unexpected status ${status}: ${JSON.stringify(body)}`);
  if (status !== 200) {
    assert.equal(typeof body?.error, 'string', JSON.stringify(body));
    assert.equal(typeof body?.message, 'string');
  }
}

const coordinate = fc.record({
  latitude: fc.oneof(fc.double({ min: -100, max: 100, noNaN: true }), fc.constantFrom(-90, 90, 90.000001, -90.000001)),
  longitude: fc.oneof(fc.double({ min: -200, max: 200, noNaN: true }), fc.constantFrom(-180, 180, 180.5)),
});
const address = fc.record({
  street: fc.string({ maxLength: 30 }),
  postalCode: fc.stringMatching(/^[0-9]{4,6}$/),
  city: fc.string({ maxLength: 20 }),
});
const location = fc.oneof(coordinate, address, fc.anything());
const stop = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 110, unit: 'binary' }), fc.integer()),
    latitude: fc.double({ min: -95, max: 95, noNaN: true }),
    longitude: fc.double({ min: -185, max: 185, noNaN: true }),
    deadline: fc.oneof(fc.stringMatching(/^[0-2][0-9]:[0-6][0-9]$/), fc.string()),
    serviceSeconds: fc.oneof(fc.integer({ min: -10, max: 4000 }), fc.double({ noNaN: true })),
    street: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['id'] },
);
const optimizeBody = fc.record(
  {
    start: location,
    end: location,
    stops: fc.array(stop, { minLength: 0, maxLength: 12 }),
    avoidTolls: fc.oneof(fc.boolean(), fc.anything()),
    departureTime: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.string(),
    ),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

test(`optimize: ${RUNS} structured bodies → spec statuses and Error bodies; a rejected call debits nothing`, async () => {
  await fc.assert(
    fc.asyncProperty(optimizeBody, async (body) => {
      const before = await balance();
      const res = await server.request('POST', '/api/v1/optimize', { key: live, body });
      checkAnswer(res.status, res.body);
      const after = await balance();
      if (res.status === 200) assert.equal(before - after, res.body.stopsCharged);
      else assert.equal(after, before, `debited on ${res.status}`);
    }),
    { numRuns: RUNS, seed: 20261122 },
  );
  const ledger = await server.services.store.ledger(liveId);
  assert.equal(
    ledger.reduce((s, e) => s + e.delta, 0),
    await balance(),
  );
});

const validStop = fc.record({
  latitude: fc.double({ min: 43, max: 50, noNaN: true }),
  longitude: fc.double({ min: -1, max: 7, noNaN: true }),
  deadline: fc.option(fc.stringMatching(/^([01][0-9]|2[0-3]):[0-5][0-9]$/), { nil: undefined }),
  serviceSeconds: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: undefined }),
});
const validBody = fc.record({
  start: fc.record({
    latitude: fc.double({ min: 43, max: 50, noNaN: true }),
    longitude: fc.double({ min: -1, max: 7, noNaN: true }),
  }),
  withEnd: fc.boolean(),
  stops: fc.array(validStop, { minLength: 2, maxLength: 40 }),
  ids: fc.uniqueArray(fc.string({ maxLength: 100, unit: 'grapheme' }), { minLength: 40, maxLength: 40 }),
  // within the accepted window (DEPARTURE_WINDOW_DAYS, 366 days either side of now)
  departureTime: fc.option(
    fc.integer({ min: -365 * 86_400, max: 365 * 86_400 }).map((s) => new Date(Date.now() + s * 1000).toISOString()),
    { nil: undefined },
  ),
});

test(`optimize: ${RUNS} valid random routes → 200, charged exactly the stops sent, a permutation of the ids`, async () => {
  await fc.assert(
    fc.asyncProperty(validBody, async ({ start, withEnd, stops, ids, departureTime }) => {
      const body = {
        start,
        ...(withEnd ? { end: start } : {}),
        ...(departureTime ? { departureTime } : {}),
        stops: stops.map((stop, i) => JSON.parse(JSON.stringify({ id: ids[i], ...stop }))),
      };
      const before = await balance();
      const res = await server.request('POST', '/api/v1/optimize', { key: live, body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.stopsCharged, stops.length);
      assert.equal(before - (await balance()), stops.length);
      assert.deepEqual([...res.body.order].sort(), body.stops.map((s) => s.id).sort());
      assert.equal(res.body.schedule.length, stops.length);
      assert.equal(res.body.returnAt === null, !withEnd);
    }),
    { numRuns: Math.ceil(RUNS / 4), seed: 3 },
  );
});

test(`optimize: ${RUNS} arbitrary JSON values and raw strings as bodies`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.string({ unit: 'binary', maxLength: 200 }),
      ),
      async (raw) => {
        const before = await balance();
        const res = await server.request('POST', '/api/v1/optimize', { key: live, rawBody: raw });
        checkAnswer(res.status, res.body);
        if (res.status !== 200) assert.equal(await balance(), before);
      },
    ),
    { numRuns: RUNS, seed: 7 },
  );
});

test(`optimize: ${RUNS} random Authorization and extra headers never give a 500`, async () => {
  const testKey = await server.createKey('test');
  const header = fc.oneof(
    fc.constant(`Bearer ${testKey}`),
    fc.string({ maxLength: 80 }).map((s) => `Bearer ${s}`),
    fc.string({ maxLength: 80 }),
  );
  const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
  await fc.assert(
    fc.asyncProperty(header, headerValue, headerValue, async (authorization, idem, requestId) => {
      let headers: Record<string, string> = { 'X-Request-Id': requestId };
      try {
        new Headers({ Authorization: authorization });
        headers = { ...headers, Authorization: authorization };
      } catch {
        /* not a valid header value */
      }
      if (idem.trim()) headers['Idempotency-Key'] = idem;
      const res = await server.request('POST', '/api/v1/optimize', {
        headers,
        body: {
          start: { latitude: 48.85, longitude: 2.35 },
          stops: [
            { id: 'a', latitude: 48.86, longitude: 2.34 },
            { id: 'b', latitude: 48.87, longitude: 2.33 },
          ],
        },
      });
      checkAnswer(res.status, res.body);
    }),
    { numRuns: RUNS, seed: 11 },
  );
});

test('huge strings and arrays are refused with 400 or 413, never 500', async () => {
  for (const body of [
    {
      start: { latitude: 1, longitude: 1 },
      stops: Array.from({ length: 5000 }, (_, i) => ({ id: String(i), latitude: 1, longitude: 1 })),
    },
    { start: { street: 'x'.repeat(100_000), postalCode: '75004', city: 'Paris' }, stops: [] },
    {
      start: { latitude: 1e308, longitude: -1e308 },
      stops: [
        { id: '\u0000\ud83d\ude80', latitude: 0, longitude: 0 },
        { id: 'é', latitude: -0, longitude: 0 },
      ],
    },
  ]) {
    const res = await server.request('POST', '/api/v1/optimize', { key: live, body });
    assert.ok([400, 413].includes(res.status), `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    checkAnswer(res.status, res.body);
  }
});
