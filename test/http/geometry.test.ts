/**
 * Extension, `"geometry": true` (src/calls/geometry.ts): each route's encoded polyline and legs, from OSRM's
 * Route service (against the fake's `route` answers) or straight segments (the built-in model, a call with
 * its own matrix, a failed Route request).
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import polylineCodec from '@googlemaps/polyline-codec';
import { fakeBend, fakeLeg, startFakeOsrm, type FakeOsrm } from '../fakes/osrm.js';
import { PARIS_START, startTestServer, type TestServer } from '../helpers/server.js';

const DEPARTURE = '2026-06-01T08:00:00+02:00';
// five decimals: what a polyline of precision 5 keeps exactly
const stops = [
  { id: 'a', latitude: 48.8606, longitude: 2.3376 },
  { id: 'b', latitude: 48.853, longitude: 2.3499 },
  { id: 'c', latitude: 48.8867, longitude: 2.3431 },
];
const END = { latitude: 48.84, longitude: 2.32 };
type LonLat = [number, number];
const lonLat = (p: { latitude: number; longitude: number }): LonLat => [p.longitude, p.latitude];
const decode = (line: string): LonLat[] => polylineCodec.decode(line, 5).map(([lat, lon]) => [lon, lat]);
const round5 = ([lon, lat]: LonLat): LonLat => [Math.round(lon * 1e5) / 1e5, Math.round(lat * 1e5) / 1e5];

let osrm: FakeOsrm;
let withOsrm: TestServer;
let builtIn: TestServer;
before(async () => {
  osrm = await startFakeOsrm();
  withOsrm = await startTestServer({
    env: { ROUTING: 'osrm,haversine', OSRM_URL: osrm.url, OSRM_TIMEOUT_MS: '2000', PLANS_SOLVER_TIME_LIMIT_MS: '100' },
  });
  builtIn = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '100' } });
});
after(async () => {
  await withOsrm.close();
  await builtIn.close();
  await osrm.close();
});

/** The points a route drives through: start, its waypoints, end. */
const pointsOf = (start: object, waypoints: Array<{ latitude: number; longitude: number }>, end?: object): LonLat[] =>
  [start, ...waypoints, ...(end ? [end] : [])].map((p) => lonLat(p as { latitude: number; longitude: number }));

test('OSRM: the line and legs of its Route service, asked in visiting order; nothing without "geometry"', async () => {
  const key = await withOsrm.createKey('live', 20);
  osrm.requests.length = 0;
  const body = { start: PARIS_START, end: END, stops, departureTime: DEPARTURE, avoidTolls: true };
  const plain = await withOsrm.request('POST', '/api/v1/optimize', { key, body });
  assert.equal(plain.status, 200);
  assert.equal(plain.body.geometry, undefined);
  assert.equal(plain.body.legs, undefined);
  assert.deepEqual(
    osrm.requests.map((r) => r.service),
    ['table'],
  );

  const res = await withOsrm.request('POST', '/api/v1/optimize', { key, body: { ...body, geometry: true } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.geometrySource, 'osrm');
  const route = osrm.requests.at(-1)!;
  assert.equal(route.service, 'route');
  const driven = pointsOf(PARIS_START, res.body.waypoints, END);
  assert.deepEqual(route.coordinates, driven, 'the Route request goes through the stops in visiting order');
  assert.equal(route.params.get('exclude'), 'toll');
  assert.equal(route.params.get('geometries'), 'geojson');
  // the fake's road turns once per leg: the line is the road's, not straight segments
  const expectedLine = [driven[0]!, ...driven.slice(1).flatMap((to, k) => [fakeBend(driven[k]!, to), to])];
  assert.deepEqual(decode(res.body.geometry), expectedLine.map(round5));
  assert.deepEqual(
    res.body.legs,
    driven.slice(1).map((to, k) => {
      const leg = fakeLeg(driven[k]!, to);
      return { distanceM: Math.round(leg.distance), durationS: Math.round(leg.duration) };
    }),
  );
});

test("OSRM: each route of a plan, from its vehicle's start to its end; a route without end stops at its last stop", async () => {
  const key = await withOsrm.createKey('live', 20);
  const res = await withOsrm.request('POST', '/api/v1/plans', {
    key,
    body: {
      vehicles: [
        { id: 'van', start: PARIS_START, end: END, maxStops: 2 },
        { id: 'bike', start: END, maxStops: 2 },
      ],
      stops,
      departureTime: DEPARTURE,
      geometry: true,
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.routes.length, 2);
  for (const route of res.body.routes) {
    const van = route.vehicleId === 'van';
    const driven = pointsOf(van ? PARIS_START : END, route.waypoints, van ? END : undefined);
    assert.equal(route.geometrySource, 'osrm');
    assert.equal(route.legs.length, driven.length - 1);
    const line = decode(route.geometry);
    assert.deepEqual(line[0], round5(driven[0]!));
    assert.deepEqual(line.at(-1), round5(driven.at(-1)!));
    assert.equal(line.length, 2 * driven.length - 1);
  }
});

test("the matrix came from the fallback: the line too (OSRM is not asked again), straight, with the matrix's legs", async () => {
  const key = await withOsrm.createKey('live', 20);
  osrm.mode = { kind: 'status', status: 503 };
  osrm.requests.length = 0;
  try {
    const res = await withOsrm.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops, departureTime: DEPARTURE, geometry: true },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.geometrySource, 'straight');
    assert.deepEqual(
      osrm.requests.map((r) => r.service),
      ['table'],
    );
    assert.deepEqual(decode(res.body.geometry), pointsOf(PARIS_START, res.body.waypoints).map(round5));
  } finally {
    osrm.mode = { kind: 'ok' };
  }
});

test("a Route request that fails: the route is still answered, drawn straight with the matrix's legs", async () => {
  const key = await withOsrm.createKey('live', 20);
  osrm.maxRouteSize = 2; // the fake answers TooBig to a route through more points; the client sends up to 500
  try {
    const res = await withOsrm.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops, departureTime: DEPARTURE, geometry: true },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(osrm.requests.at(-1)!.service, 'route');
    assert.equal(res.body.geometrySource, 'straight');
    assert.equal(res.body.legs.length, 3);
  } finally {
    osrm.maxRouteSize = 500;
  }
});

test("built-in model: straight segments; the legs are the schedule's (they add up to its distance and times)", async () => {
  const key = await builtIn.createKey('test');
  const res = await builtIn.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: PARIS_START,
      end: END,
      stops: stops.map((s) => ({ ...s, serviceSeconds: 60 })),
      departureTime: DEPARTURE,
      geometry: true,
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.geometrySource, 'straight');
  assert.deepEqual(decode(res.body.geometry), pointsOf(PARIS_START, res.body.waypoints, END).map(round5));
  const legs: Array<{ distanceM: number; durationS: number }> = res.body.legs;
  assert.equal(legs.length, 4);
  assert.equal(Math.round(legs.reduce((m, l) => m + l.distanceM, 0) / 10) / 100, res.body.totalDistanceKm);
  const drivingS = legs.reduce((s, l) => s + l.durationS, 0);
  assert.equal(Date.parse(res.body.returnAt) - Date.parse(res.body.departAt), (drivingS + 180) * 1000);
});

test('a call with its own matrix: straight through its locations, legs from its matrix, no engine asked', async () => {
  const key = await withOsrm.createKey('live', 20);
  osrm.requests.length = 0;
  const durations = [
    [0, 100, 200],
    [110, 0, 300],
    [210, 310, 0],
  ];
  const distances = durations.map((row) => row.map((s) => s * 10));
  const locations = [PARIS_START, stops[0]!, stops[1]!].map(({ latitude, longitude }) => ({ latitude, longitude }));
  const res = await withOsrm.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: { index: 0 },
      end: { index: 0 },
      stops: [
        { id: 'x', index: 1 },
        { id: 'y', index: 2 },
      ],
      matrix: { durations, distances },
      locations,
      geometry: true,
      departureTime: DEPARTURE,
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(osrm.requests.length, 0);
  assert.equal(res.body.geometrySource, 'straight');
  const path = [0, ...res.body.order.map((id: string) => (id === 'x' ? 1 : 2)), 0];
  assert.deepEqual(
    decode(res.body.geometry),
    path.map((k) => round5(lonLat(locations[k]!))),
  );
  assert.deepEqual(
    res.body.legs,
    path.slice(1).map((to, k) => ({ distanceM: distances[path[k]!]![to]!, durationS: durations[path[k]!]![to]! })),
  );
});
