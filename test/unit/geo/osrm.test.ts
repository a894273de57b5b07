import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { OsrmProvider } from '../../../src/geo/routing/osrm.js';
import { RoutingChain } from '../../../src/geo/routing/chain.js';
import { HaversineProvider } from '../../../src/geo/routing/haversine.js';
import { createRouting, RoutingError, type Point } from '../../../src/geo/routing/index.js';
import { fakeLeg, startFakeOsrm, type FakeOsrmMode } from '../../fakes/osrm.js';

const fake = await startFakeOsrm({ maxTableSize: 100 });
after(() => fake.close());

function points(n: number): Point[] {
  // 5 decimals so the coordinates the fake receives are exactly these numbers
  return Array.from({ length: n }, (_, i) => ({
    latitude: Math.round((48.8 + ((i * 37) % 101) / 1000) * 1e5) / 1e5,
    longitude: Math.round((2.3 + ((i * 53) % 97) / 1000) * 1e5) / 1e5,
  }));
}
function expected(pts: Point[]) {
  const ll = (p: Point): [number, number] => [p.longitude, p.latitude];
  return {
    durationsS: pts.map((a, i) => pts.map((b, j) => (i === j ? 0 : Math.round(fakeLeg(ll(a), ll(b)).duration)))),
    distancesM: pts.map((a, i) => pts.map((b, j) => (i === j ? 0 : Math.round(fakeLeg(ll(a), ll(b)).distance)))),
  };
}
function reset(): void {
  fake.requests.length = 0;
  fake.mode = { kind: 'ok' };
}
const logs: { level: string; obj: object; msg?: string }[] = [];
const logger = {
  warn: (obj: object, msg?: string) => logs.push({ level: 'warn', obj, msg }),
  info: (obj: object, msg?: string) => logs.push({ level: 'info', obj, msg }),
};

test('small table: one request, the Table URL shape, rounded integers', async () => {
  reset();
  const pts = points(5);
  const osrm = new OsrmProvider({ baseUrl: `${fake.url}/`, profile: 'car' });
  const m = await osrm.matrix(pts, { avoidTolls: false });
  assert.equal(fake.requests.length, 1);
  const r = fake.requests[0]!;
  assert.equal(r.profile, 'car');
  assert.equal(r.params.get('annotations'), 'duration,distance');
  assert.equal(r.params.get('sources'), null);
  assert.equal(r.params.get('exclude'), null);
  assert.deepEqual(
    r.coordinates,
    pts.map((p) => [p.longitude, p.latitude]),
  );
  assert.deepEqual(m, expected(pts));
  assert.ok(m.durationsS.flat().every(Number.isInteger));
});

test('202 points against a server limited to 100: chunked, ≤ 100 coordinates per request, same matrix', async () => {
  reset();
  const pts = points(202);
  const osrm = new OsrmProvider({ baseUrl: fake.url, maxTableSize: 100 });
  const m = await osrm.matrix(pts, { avoidTolls: false });
  assert.ok(fake.requests.length > 1);
  assert.equal(fake.requests.length, 25); // 5 groups of ≤ 50 → 5 × 5 blocks
  for (const r of fake.requests) {
    assert.ok(r.coordinates.length <= 100, `${r.coordinates.length} coordinates`);
    const src = r.params.get('sources')!.split(';').map(Number);
    const dst = r.params.get('destinations')!.split(';').map(Number);
    // the coordinate list holds exactly the points this block needs
    assert.equal(new Set([...src, ...dst]).size, r.coordinates.length);
  }
  assert.deepEqual(m, expected(pts));
  // the server really refuses more than 100, so an unchunked request would fail
  fake.requests.length = 0;
  await assert.rejects(
    new OsrmProvider({ baseUrl: fake.url, maxTableSize: 300 }).matrix(pts, { avoidTolls: false }),
    (e: unknown) => {
      assert.ok(e instanceof RoutingError);
      assert.equal(e.status, 400);
      assert.equal(e.code, 'TooBig');
      return true;
    },
  );
});

test('exclude=toll is sent when avoidTolls, on every chunk', async () => {
  reset();
  await new OsrmProvider({ baseUrl: fake.url, maxTableSize: 4 }).matrix(points(6), { avoidTolls: true });
  assert.ok(fake.requests.length > 1);
  assert.ok(fake.requests.every((r) => r.params.get('exclude') === 'toll'));
  reset();
  await new OsrmProvider({ baseUrl: fake.url }).matrix(points(3), { avoidTolls: false });
  assert.equal(fake.requests[0]!.params.get('exclude'), null);
});

test('errors: HTTP status, code != Ok, malformed body, unroutable pair', async () => {
  const osrm = new OsrmProvider({ baseUrl: fake.url });
  const pts = points(4);
  const cases: [FakeOsrmMode, RegExp, Record<string, unknown>][] = [
    [{ kind: 'status', status: 500, body: 'Internal Server Error' }, /HTTP 500/, { status: 500 }],
    [
      { kind: 'status', status: 400, body: { code: 'InvalidQuery', message: 'Query string malformed' } },
      /HTTP 400 InvalidQuery/,
      { status: 400, code: 'InvalidQuery' },
    ],
    [{ kind: 'code', code: 'NoTable', message: 'no table' }, /code NoTable/, { code: 'NoTable' }],
    [{ kind: 'malformed' }, /malformed response/, {}],
    [{ kind: 'unroutable', from: 1, to: 2 }, /no route from point 1 to point 2/, { code: 'NoRoute' }],
  ];
  for (const [mode, re, props] of cases) {
    reset();
    fake.mode = mode;
    await assert.rejects(osrm.matrix(pts, { avoidTolls: false }), (e: unknown) => {
      assert.ok(e instanceof RoutingError, String(e));
      assert.equal(e.provider, 'osrm');
      assert.match(e.message, re);
      for (const [k, v] of Object.entries(props)) assert.equal((e as unknown as Record<string, unknown>)[k], v, k);
      return true;
    });
  }
  reset();
});

test('stalled server → timeout → the chain falls back to haversine and says so', async () => {
  reset();
  fake.mode = { kind: 'stall' };
  logs.length = 0;
  const pts = points(3);
  const osrm = new OsrmProvider({ baseUrl: fake.url, timeoutMs: 150 });
  const t0 = Date.now();
  await assert.rejects(
    osrm.matrix(pts, { avoidTolls: false }),
    (e: unknown) => e instanceof RoutingError && e.timedOut,
  );
  assert.ok(Date.now() - t0 < 2000);

  const chain = new RoutingChain([osrm, new HaversineProvider()], { logger });
  const m = await chain.matrix(pts, { avoidTolls: false });
  assert.equal(m.provider, 'haversine');
  assert.deepEqual(
    { durationsS: m.durationsS, distancesM: m.distancesM },
    await new HaversineProvider().matrix(pts, { avoidTolls: false }),
  );
  const warn = logs.find((l) => l.level === 'warn');
  assert.ok(warn && /osrm failed, falling back to haversine/.test(warn.msg ?? ''));

  fake.mode = { kind: 'ok' };
  const ok = await chain.matrix(pts, { avoidTolls: false });
  assert.equal(ok.provider, 'osrm');
  reset();
});

test('createRouting builds chains and single providers; config errors are clear', async () => {
  const chain = createRouting(['osrm', 'haversine'], { osrm: { baseUrl: fake.url }, logger });
  assert.equal(chain.name, 'osrm,haversine');
  assert.deepEqual(
    chain.providers.map((p) => p.name),
    ['osrm', 'haversine'],
  );
  const single = createRouting(['haversine']);
  assert.equal((await single.matrix(points(2), { avoidTolls: false })).provider, 'haversine');
  assert.throws(() => createRouting(['osrm']), /baseUrl/);
  assert.throws(() => createRouting(['graphhopper']), /unknown routing provider "graphhopper"/);
  assert.throws(() => createRouting([]), /at least one/);

  // a single provider has no fallback: its own RoutingError comes out
  reset();
  fake.mode = { kind: 'status', status: 503, body: 'busy' };
  const sandbox = createRouting(['osrm'], { osrm: { baseUrl: fake.url } });
  await assert.rejects(
    sandbox.matrix(points(3), { avoidTolls: false }),
    (e: unknown) => e instanceof RoutingError && e.provider === 'osrm' && e.status === 503,
  );
  // every provider failing → RoutingError('chain') with each error
  const failing = new RoutingChain([new OsrmProvider({ baseUrl: fake.url }), new OsrmProvider({ baseUrl: fake.url })]);
  await assert.rejects(
    failing.matrix(points(3), { avoidTolls: false }),
    (e: unknown) => e instanceof RoutingError && e.provider === 'chain' && e.errors.length === 2,
  );
  reset();
});

test("the caller's abort stops the chain without fallback", async () => {
  reset();
  fake.mode = { kind: 'stall' };
  const chain = new RoutingChain([new OsrmProvider({ baseUrl: fake.url, timeoutMs: 5000 }), new HaversineProvider()]);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(
    chain.matrix(points(3), { avoidTolls: false, signal: ac.signal }),
    (e: unknown) => e instanceof RoutingError && /aborted/.test(e.message),
  );
  reset();
});
