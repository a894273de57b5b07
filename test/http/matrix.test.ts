/**
 * Extension, "bring your own travel times" (src/calls/given-matrix.ts): a call with its own matrix asks no
 * geocoder and no routing engine, its schedule is the given durations plus the service times, and every way
 * of getting the matrix wrong answers a 400 that names the field and the fix.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { startFakeOsrm, type FakeOsrm } from '../fakes/osrm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DEPARTURE = '2026-06-01T08:00:00Z';
const t0 = Date.parse(DEPARTURE);
// asymmetric, and far from anything a straight-line model would give: 0 depot, 1..4 customers
const DURATIONS = [
  [0, 700, 1300, 410, 2000],
  [650, 0, 95, 1200, 333],
  [1250, 101, 0, 870, 517],
  [400, 1190, 880, 0, 1555],
  [1990, 321, 505, 1545, 0],
];
const DISTANCES = DURATIONS.map((row) => row.map((s) => s * 9 + (s > 0 ? 7 : 0)));
const LOCATIONS = [
  { latitude: 48.8566, longitude: 2.3522 },
  { latitude: 48.8606, longitude: 2.3376 },
  { latitude: 48.853, longitude: 2.3499 },
  { latitude: 48.8867, longitude: 2.3431 },
  { latitude: 48.8412, longitude: 2.3003 },
];
const SERVICE = [0, 60, 120, 30, 300];
const stops = [1, 2, 3, 4].map((k) => ({ id: `s${k}`, index: k, serviceSeconds: SERVICE[k] }));

let osrm: FakeOsrm;
let server: TestServer;
before(async () => {
  osrm = await startFakeOsrm();
  // an OSRM without fallback: any routing request would show in osrm.requests
  server = await startTestServer({ env: { ROUTING: 'osrm', OSRM_URL: osrm.url, PLANS_SOLVER_TIME_LIMIT_MS: '100' } });
});
after(async () => {
  await server.close();
  await osrm.close();
});

/** Arrival at each stop of `order` (stop ids) from index `from`: the given durations and services, cumulated. */
function expectedArrivals(order: string[], from = 0): string[] {
  let at = t0;
  let here = from;
  let serviceBefore = 0;
  return order.map((id) => {
    const k = Number(id.slice(1));
    at += serviceBefore * 1000 + DURATIONS[here]![k]! * 1000;
    here = k;
    serviceBefore = SERVICE[k]!;
    return new Date(at).toISOString().replace('.000Z', 'Z');
  });
}

test('optimize with a matrix: no engine asked, arrivals are the given durations plus service, distances the given ones', async () => {
  const key = await server.createKey('live', 10);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: { index: 0 },
      end: { index: 0 },
      stops,
      departureTime: DEPARTURE,
      matrix: { durations: DURATIONS, distances: DISTANCES },
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(osrm.requests.length, 0);
  const order: string[] = res.body.order;
  assert.deepEqual(
    res.body.schedule.map((e: { arrivee: string }) => e.arrivee),
    expectedArrivals(order),
  );
  const path = [0, ...order.map((id) => Number(id.slice(1))), 0];
  const metres = path.slice(1).reduce((m, to, k) => m + DISTANCES[path[k]!]![to]!, 0);
  assert.equal(res.body.totalDistanceKm, Math.round(metres / 10) / 100);
  const seconds = path.slice(1).reduce((s, to, k) => s + DURATIONS[path[k]!]![to]!, 0) + 510;
  assert.equal(res.body.estimatedTimeMin, Math.round(seconds / 6) / 10);
  assert.equal(res.body.returnAt, new Date(t0 + seconds * 1000).toISOString().replace('.000Z', 'Z'));
  assert.deepEqual(res.body.waypoints[0].latitude, null);
  assert.equal(res.body.stopsCharged, 4);
  assert.equal(res.body.stopsBalance, 6);
});
