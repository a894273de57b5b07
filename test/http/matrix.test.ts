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

test("plans with a matrix: each route's arrivals are the given durations plus service; vehicles share a row", async () => {
  const key = await server.createKey('live', 10);
  const res = await server.request('POST', '/api/v1/plans', {
    key,
    body: {
      vehicles: [
        { id: 'van', start: { index: 0 }, end: { index: 0 }, maxStops: 2 },
        { id: 'bike', start: { index: 0 }, maxStops: 2 },
      ],
      stops,
      departureTime: DEPARTURE,
      matrix: { durations: DURATIONS },
      locations: LOCATIONS,
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(osrm.requests.length, 0);
  assert.equal(res.body.routes.length, 2);
  for (const route of res.body.routes) {
    assert.deepEqual(
      route.schedule.map((e: { arrivee: string }) => e.arrivee),
      expectedArrivals(route.order),
    );
    // coordinates from locations, in the waypoints
    route.waypoints.forEach((w: { id: string; latitude: number }) =>
      assert.equal(w.latitude, LOCATIONS[Number(w.id.slice(1))]!.latitude),
    );
  }
  assert.equal(res.body.stopsCharged, 4);
});

test('distances: absent with locations, the built-in model over them; absent without, 0', async () => {
  const key = await server.createKey('test');
  const body = {
    start: { index: 0 },
    stops: stops.slice(0, 2),
    departureTime: DEPARTURE,
    matrix: { durations: DURATIONS.slice(0, 3).map((r) => r.slice(0, 3)) },
  };
  const bare = await server.request('POST', '/api/v1/optimize', { key, body });
  assert.equal(bare.status, 200, JSON.stringify(bare.body));
  assert.equal(bare.body.totalDistanceKm, 0);
  assert.deepEqual(
    bare.body.waypoints.map((w: { latitude: unknown; longitude: unknown }) => [w.latitude, w.longitude]),
    [
      [null, null],
      [null, null],
    ],
  );
  const located = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { ...body, locations: LOCATIONS.slice(0, 3) },
  });
  assert.equal(located.status, 200);
  // Paris, a few km: the straight line × 1.3, between 1 and 10 km
  assert.ok(
    located.body.totalDistanceKm > 1 && located.body.totalDistanceKm < 10,
    String(located.body.totalDistanceKm),
  );
  assert.deepEqual(located.body.schedule, bare.body.schedule, "the times stay the matrix's");
  assert.equal(located.body.sandbox, true);
});

test('the same index is one place: its stops are visited together, in input order', async () => {
  const key = await server.createKey('live', 10);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: { index: 0 },
      stops: [
        { id: 'x1', index: 4, serviceSeconds: 10 },
        { id: 'far', index: 3 },
        { id: 'x2', index: 4, serviceSeconds: 10 },
        { id: 'x3', index: 4, serviceSeconds: 10 },
      ],
      departureTime: DEPARTURE,
      matrix: { durations: DURATIONS },
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const order: string[] = res.body.order;
  const xs = order.map((id, i) => (id.startsWith('x') ? i : -1)).filter((i) => i >= 0);
  assert.deepEqual(
    order.filter((id) => id.startsWith('x')),
    ['x1', 'x2', 'x3'],
  );
  assert.equal(xs[2]! - xs[0]!, 2, 'consecutive');
  const arrivals = res.body.schedule.map((e: { arrivee: string }) => Date.parse(e.arrivee));
  assert.equal(arrivals[xs[1]!] - arrivals[xs[0]!], 10_000, 'no travel within one place: the service alone');
});

const bad = async (body: object, key?: string) => {
  const res = await server.request('POST', '/api/v1/optimize', { key: key ?? (await server.createKey('test')), body });
  return { status: res.status, error: res.body.error, param: res.body.param, message: res.body.message as string };
};
const square = (n: number) =>
  Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : 60)));

test('a wrong matrix answers 400 naming the field and the fix', async () => {
  const base = {
    start: { index: 0 },
    stops: [
      { id: 'a', index: 1 },
      { id: 'b', index: 2 },
    ],
  };
  const cases: Array<[string, object, string, RegExp]> = [
    [
      'not square',
      {
        ...base,
        matrix: {
          durations: [
            [0, 1, 2],
            [1, 0],
            [2, 1, 0],
          ],
        },
      },
      'matrix.durations[1]',
      /has 2 values but the matrix has 3 rows: it is square/,
    ],
    [
      'distances of another size',
      { ...base, matrix: { durations: square(3), distances: square(4) } },
      'matrix.distances',
      /matrix.distances has 4 rows but matrix.durations has 3/,
    ],
    [
      'a distances row too short',
      {
        ...base,
        matrix: {
          durations: square(3),
          distances: [
            [0, 1, 2],
            [1, 0, 2],
            [2, 1],
          ],
        },
      },
      'matrix.distances[2]',
      /has 2 values/,
    ],
    [
      'a negative duration',
      {
        ...base,
        matrix: {
          durations: [
            [0, -5, 1],
            [1, 0, 1],
            [1, 1, 0],
          ],
        },
      },
      'matrix.durations[0][1]',
      /must be a number of seconds from 0 to 1000000/,
    ],
    [
      'a duration as a string',
      {
        ...base,
        matrix: {
          durations: [
            [0, '5', 1],
            [1, 0, 1],
            [1, 1, 0],
          ],
        },
      },
      'matrix.durations[0][1]',
      /write 5 without quotes/,
    ],
    [
      'an index out of range',
      {
        ...base,
        stops: [
          { id: 'a', index: 1 },
          { id: 'b', index: 3 },
        ],
        matrix: { durations: square(3) },
      },
      'stops[1].index',
      /stops\[1\].index is 3 but matrix.durations has 3 rows: use an index from 0 to 2/,
    ],
    ['an index without a matrix', base, 'start.index', /start has an index but the call has no matrix: send "matrix"/],
    [
      'coordinates with a matrix',
      { ...base, start: { latitude: 48.85, longitude: 2.35 }, matrix: { durations: square(3) } },
      'start',
      /start has coordinates but the call has a matrix: with a matrix every location is \{"index": k\}/,
    ],
    [
      'locations without a matrix',
      {
        start: { latitude: 48.85, longitude: 2.35 },
        stops: [
          { id: 'a', latitude: 48.86, longitude: 2.34 },
          { id: 'b', latitude: 48.85, longitude: 2.36 },
        ],
        locations: LOCATIONS,
      },
      'locations',
      /the call has no matrix/,
    ],
    [
      'locations of another size',
      { ...base, matrix: { durations: square(3) }, locations: LOCATIONS },
      'locations',
      /locations has 5 entries but matrix.durations has 3 rows/,
    ],
    [
      'geometry without locations',
      { ...base, matrix: { durations: square(3) }, geometry: true },
      'geometry',
      /geometry needs the coordinates of the places: with a matrix, send locations/,
    ],
    [
      'avoidTolls with a matrix',
      { ...base, matrix: { durations: square(3) }, avoidTolls: true },
      'avoidTolls',
      /no engine is asked: build the matrix without tolls/,
    ],
    [
      'index and coordinates at once',
      { ...base, start: { index: 0, latitude: 48.85, longitude: 2.35 }, matrix: { durations: square(3) } },
      'start',
      /not both/,
    ],
    ['no durations', { ...base, matrix: { distances: square(3) } }, 'matrix.durations', /is required/],
  ];
  for (const [name, body, param, message] of cases) {
    const answer = await bad(body);
    assert.deepEqual(
      [answer.status, answer.error, answer.param],
      [400, 'invalid_request', param],
      `${name}: ${answer.message}`,
    );
    assert.match(answer.message, message, name);
  }
  // JSON.parse reads 1e400 as Infinity
  const infinite = await server.request('POST', '/api/v1/optimize', {
    key: await server.createKey('test'),
    rawBody: JSON.stringify({ ...base, matrix: { durations: square(3) } }).replace('[0,60,60]', '[0,1e400,60]'),
  });
  assert.deepEqual([infinite.status, infinite.body.param], [400, 'matrix.durations[0][1]']);
  assert.match(infinite.body.message, /must be a number of seconds from 0 to 1000000/);
});

test("test keys: a matrix up to their call's locations; more rows → sandbox_limit; plans check vehicles' indices too", async () => {
  const key = await server.createKey('test');
  const body = {
    start: { index: 0 },
    stops: [
      { id: 'a', index: 1 },
      { id: 'b', index: 2 },
    ],
    matrix: { durations: square(3) },
  };
  assert.equal((await server.request('POST', '/api/v1/optimize', { key, body })).status, 200);
  const big = await bad({ ...body, matrix: { durations: square(4) } }, key);
  assert.equal(big.status, 400);
  assert.equal(big.error, 'sandbox_limit');
  assert.match(big.message, /at most as many rows as the call has locations \(3 here/);
  const live = await bad({ ...body, matrix: { durations: square(40) } }, await server.createKey('live', 10));
  assert.equal(live.status, 200);
  const plan = await server.request('POST', '/api/v1/plans', {
    key,
    body: { vehicles: [{ id: 'v', start: { index: 0 }, end: { index: 5 } }], stops: body.stops, matrix: body.matrix },
  });
  assert.deepEqual([plan.status, plan.body.param], [400, 'vehicles[0].end.index']);
  assert.match(plan.body.message, /vehicles\[0\].end.index is 5 but matrix.durations has 3 rows/);
});
