/**
 * The one same-place rule of optimize and plans (src/calls/places.ts): points within 5 m are one row of
 * the travel matrix, and each route visits the stops of one place in input order unless that makes it later.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { startFakeOsrm } from '../fakes/osrm.js';
import { PARIS_START, startTestServer, type TestServer } from '../helpers/server.js';

const DEPARTURE = '2026-06-01T08:00:00+02:00';
const A = { latitude: 48.855648, longitude: 2.358457 };
const A2 = { latitude: 48.85567, longitude: 2.35848 }; // 3 m from A
const FAR = { latitude: 48.8867, longitude: 2.3431 };
// the solver is free to visit a place's stops in any order: input order is what the answer shows
const stops = [
  { id: 'far', ...FAR },
  { id: 'a1', ...A, serviceSeconds: 60 },
  { id: 'a2', ...A2, serviceSeconds: 60 },
  { id: 'a3', ...A, serviceSeconds: 60 },
];
const atA = (order: string[]) => order.filter((id) => id.startsWith('a'));

async function withOsrmServer(
  run: (s: TestServer, requests: () => Array<{ coordinates: unknown[] }>) => Promise<void>,
): Promise<void> {
  const osrm = await startFakeOsrm();
  const server = await startTestServer({
    env: { ROUTING: 'osrm', OSRM_URL: osrm.url, PLANS_SOLVER_TIME_LIMIT_MS: '100' },
  });
  try {
    await run(server, () => osrm.requests);
  } finally {
    await server.close();
    await osrm.close();
  }
}

test('optimize and plans: stops 3 m apart are one matrix row and are visited in input order', async () => {
  await withOsrmServer(async (s, requests) => {
    const key = await s.createKey('live', 100);
    const route = await s.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, end: PARIS_START, stops, departureTime: DEPARTURE },
    });
    assert.equal(route.status, 200, JSON.stringify(route.body));
    assert.equal(requests().at(-1)!.coordinates.length, 3, 'start and end, far, one place for a1 a2 a3');
    assert.deepEqual(atA(route.body.order), ['a1', 'a2', 'a3']);

    const plan = await s.request('POST', '/api/v1/plans', {
      key,
      body: { vehicles: [{ id: 'van', start: PARIS_START, end: PARIS_START }], stops, departureTime: DEPARTURE },
    });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    assert.equal(requests().at(-1)!.coordinates.length, 3);
    assert.deepEqual(atA(plan.body.routes[0].order), ['a1', 'a2', 'a3']);
    assert.deepEqual(
      plan.body.routes[0].waypoints
        .filter((w: { id: string }) => w.id !== 'far')
        .map((w: { latitude: number }) => w.latitude),
      [A.latitude, A2.latitude, A.latitude],
      'each waypoint keeps its own coordinates',
    );
  });
});

test("plans: a place keeps the solver's order when input order would end the route later (a wait for notBefore)", async () => {
  await withOsrmServer(async (s) => {
    const key = await s.createKey('live', 100);
    // input order would wait for x's 09:00 first and serve y after it; the solver serves y while it waits
    const waiting = [
      { id: 'x', ...A, notBefore: '09:00', serviceSeconds: 300 },
      { id: 'y', ...A2, serviceSeconds: 300 },
    ];
    const plan = await s.request('POST', '/api/v1/plans', {
      key,
      body: { vehicles: [{ id: 'van', start: PARIS_START }], stops: waiting, departureTime: DEPARTURE },
    });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    assert.deepEqual(plan.body.routes[0].order, ['y', 'x']);
    assert.equal(plan.body.routes[0].schedule[1].serviceStart, '2026-06-01T07:00:00Z');
  });
});
