import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { OsrmProvider } from '../../../src/geo/routing/osrm.js';
import { RoutingChain } from '../../../src/geo/routing/chain.js';
import { HaversineProvider } from '../../../src/geo/routing/haversine.js';
import { RoutingError, type Point } from '../../../src/geo/routing/index.js';
import { fakeBend, fakeLeg, startFakeOsrm } from '../../fakes/osrm.js';

const fake = await startFakeOsrm();
after(() => fake.close());

// whole hundredths, as the URL carries them (6 decimals at most)
const points: Point[] = Array.from({ length: 7 }, (_, i) => ({
  latitude: (4880 + i) / 100,
  longitude: (230 + ((i * 3) % 7)) / 100,
}));
const ll = (p: Point): [number, number] => [p.longitude, p.latitude];
const asPoint = ([longitude, latitude]: [number, number]): Point => ({ latitude, longitude });

test('Route service: one request in visiting order; the road line and one leg per pair of points', async () => {
  fake.requests.length = 0;
  const osrm = new OsrmProvider({ baseUrl: fake.url, profile: 'car' });
  const line = await osrm.route(points.slice(0, 3), { avoidTolls: true });
  assert.equal(fake.requests.length, 1);
  const r = fake.requests[0]!;
  assert.deepEqual(
    [r.service, r.profile, r.params.get('overview'), r.params.get('geometries')],
    ['route', 'car', 'full', 'geojson'],
  );
  assert.equal(r.params.get('exclude'), 'toll');
  assert.deepEqual(r.coordinates, points.slice(0, 3).map(ll));
  const [a, b, c] = points.slice(0, 3).map(ll) as [[number, number], [number, number], [number, number]];
  assert.deepEqual(line.coordinates, [a, fakeBend(a, b), b, fakeBend(b, c), c].map(asPoint));
  assert.deepEqual(
    line.legs,
    [fakeLeg(a, b), fakeLeg(b, c)].map((l) => ({
      distanceM: Math.round(l.distance),
      durationS: Math.round(l.duration),
    })),
  );
  assert.equal(line.provider, 'osrm');
});

test('more points than maxRouteSize: pieces that share their end points, joined without repeating them', async () => {
  fake.requests.length = 0;
  fake.maxRouteSize = 3;
  try {
    const whole = await new OsrmProvider({ baseUrl: fake.url, maxRouteSize: 500 }).route(points.slice(0, 3), {
      avoidTolls: false,
    });
    assert.ok(whole.legs);
    fake.requests.length = 0;
    const line = await new OsrmProvider({ baseUrl: fake.url, maxRouteSize: 3 }).route(points, { avoidTolls: false });
    assert.deepEqual(
      fake.requests.map((r) => r.coordinates.length),
      [3, 3, 3],
    );
    assert.deepEqual(fake.requests[1]!.coordinates[0], ll(points[2]!));
    const all = points.map(ll);
    assert.deepEqual(
      line.coordinates,
      [all[0]!, ...all.slice(1).flatMap((to, k) => [fakeBend(all[k]!, to), to])].map(asPoint),
    );
    assert.equal(line.legs!.length, 6);
    await assert.rejects(
      new OsrmProvider({ baseUrl: fake.url, maxRouteSize: 4 }).route(points, { avoidTolls: false }),
      (e: unknown) => e instanceof RoutingError && e.code === 'TooBig',
    );
  } finally {
    fake.maxRouteSize = 500;
  }
});

test('Route failures are RoutingErrors: NoRoute, a malformed answer; the chain falls back to straight segments', async () => {
  const osrm = new OsrmProvider({ baseUrl: fake.url });
  fake.mode = { kind: 'unroutable', from: 0, to: 1 };
  try {
    await assert.rejects(
      osrm.route(points.slice(0, 2), { avoidTolls: false }),
      (e: unknown) => e instanceof RoutingError && e.code === 'NoRoute',
    );
    fake.mode = { kind: 'malformed' };
    await assert.rejects(osrm.route(points.slice(0, 2), { avoidTolls: false }), /malformed route response/);
    const chain = new RoutingChain([osrm, new HaversineProvider()]);
    const line = await chain.route(points.slice(0, 3), { avoidTolls: false });
    assert.equal(line.provider, 'haversine');
    assert.deepEqual(line.coordinates, points.slice(0, 3));
    assert.equal(line.legs, undefined);
    fake.mode = { kind: 'ok' };
    fake.requests.length = 0;
    const fromFallback = await chain.route(points.slice(0, 3), { avoidTolls: false, provider: 'haversine' });
    assert.equal(fromFallback.provider, 'haversine');
    assert.equal(fake.requests.length, 0, 'the chain starts at the named provider');
    assert.equal((await chain.route(points.slice(0, 3), { avoidTolls: false })).provider, 'osrm');
  } finally {
    fake.mode = { kind: 'ok' };
  }
});
