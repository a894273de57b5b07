/**
 * POST /api/v1/plans when something fails (solver, routing engine, deadline, client), the sandbox's day
 * cap, and the travel matrix: one over the distinct points, chunked for OSRM, 1000 stops end to end.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { PlanSolver } from '../../src/api/plans/pipeline.js';
import { OsrmProvider, createRoutingProvider } from '../../src/geo/index.js';
import { SolverError } from '../../src/solver/errors.js';
import { startFakeOsrm } from '../fakes/osrm.js';
import { planProblems } from '../helpers/plan-invariants.js';
import { freePort } from '../helpers/process.js';
import { PARIS_START, coordinateStops, startTestServer, withServer, type TestServer } from '../helpers/server.js';

const failing = (error: Error): PlanSolver => ({
  solveFleet: async () => {
    throw error;
  },
});
const stalling: PlanSolver = { solveFleet: () => new Promise(() => {}) };
const DEPARTURE = '2026-06-01T08:00:00+02:00';
const body = (stops = 4) => ({
  departureTime: DEPARTURE,
  vehicles: [
    { id: 'a', start: PARIS_START },
    { id: 'b', start: PARIS_START },
  ],
  stops: coordinateStops(stops),
});
const waitFor = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 150 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
};

test('a solver trap → 502 optimization_failed without internals, refunded; a test key gets its stops back', async () => {
  await withServer(
    { overrides: { fleetSolver: failing(new SolverError('trap', 'unreachable executed')) } },
    async (s) => {
      const live = await s.createKey('live', 10);
      const res = await s.request('POST', '/api/v1/plans', { key: live, body: body() });
      assert.deepEqual([res.status, res.body.error], [502, 'optimization_failed']);
      assert.match(res.body.message, /could not solve this plan\. Nothing was charged/);
      assert.ok(!/unreachable/.test(res.body.message));
      assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
      const testKey = await s.createKey('test');
      assert.equal((await s.request('POST', '/api/v1/plans', { key: testKey, body: body() })).status, 502);
      assert.equal((await s.request('GET', '/api/v1/balance', { key: testKey })).body.sandboxStopsRemainingToday, 200);
    },
  );
});

test('a full solver queue → 503 overloaded with Retry-After, refunded', async () => {
  await withServer({ overrides: { fleetSolver: failing(new SolverError('queue_full', 'queue full')) } }, async (s) => {
    const live = await s.createKey('live', 10);
    const res = await s.request('POST', '/api/v1/plans', { key: live, body: body() });
    assert.deepEqual([res.status, res.body.error, res.headers.get('retry-after')], [503, 'overloaded', '1']);
    assert.equal((await s.ledgerOf(live)).balance, 10);
  });
});

test('past the request deadline → 502 refunded; a client that goes away is refunded; a second call with its Idempotency-Key meanwhile → 409 in progress', async () => {
  await withServer({ env: { REQUEST_DEADLINE_MS: '4000' }, overrides: { fleetSolver: stalling } }, async (s) => {
    const live = await s.createKey('live', 10);
    const first = s.request('POST', '/api/v1/plans', {
      key: live,
      body: body(),
      headers: { 'Idempotency-Key': 'slow' },
    });
    await waitFor(async () => (await s.ledgerOf(live)).balance !== 10);
    const second = await s.request('POST', '/api/v1/plans', {
      key: live,
      body: body(),
      headers: { 'Idempotency-Key': 'slow' },
    });
    assert.deepEqual([second.status, second.body.error], [409, 'idempotency_in_progress']);
    const timedOut = await first;
    assert.deepEqual([timedOut.status, timedOut.body.error], [502, 'optimization_failed']);
    assert.match(timedOut.body.message, /did not finish within 4000 ms/);
    assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });

    const controller = new AbortController();
    const call = fetch(`${s.url}/api/v1/plans`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body()),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await waitFor(async () => (await s.ledgerOf(live)).balance === 6);
    controller.abort();
    assert.equal(await call, 'aborted');
    await waitFor(async () => (await s.ledgerOf(live)).balance === 10);
    assert.deepEqual(await s.ledgerOf(live), {
      balance: 10,
      sum: 10,
      reasons: ['admin_credit', 'debit', 'refund', 'debit', 'refund'],
    });
  });
});

test('routing engine down: live → 502 refunded; sandbox → 503 sandbox_unavailable, nothing counted', async () => {
  const port = await freePort();
  await withServer(
    { env: { ROUTING: 'osrm', SANDBOX_ROUTING: 'osrm', OSRM_URL: `http://127.0.0.1:${port}`, OSRM_TIMEOUT_MS: '500' } },
    async (s) => {
      const live = await s.createKey('live', 10);
      const res = await s.request('POST', '/api/v1/plans', { key: live, body: body() });
      assert.deepEqual([res.status, res.body.error], [502, 'optimization_failed']);
      assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
      const testKey = await s.createKey('test');
      const sandbox = await s.request('POST', '/api/v1/plans', { key: testKey, body: body() });
      assert.deepEqual([sandbox.status, sandbox.body.error], [503, 'sandbox_unavailable']);
      assert.equal((await s.request('GET', '/api/v1/balance', { key: testKey })).body.sandboxStopsRemainingToday, 200);
    },
  );
});

test('sandbox: the stops of plans count against the Paris day, shared with optimize → 429 sandbox_rate_limited past it', async () => {
  await withServer({ env: { SANDBOX_STOPS_PER_DAY: '25', PLANS_SOLVER_TIME_LIMIT_MS: '100' } }, async (s) => {
    const key = await s.createKey('test');
    assert.equal(
      (await s.request('POST', '/api/v1/plans', { key, body: body(10) })).body.sandboxStopsRemainingToday,
      15,
    );
    assert.equal(
      (await s.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(10) } }))
        .body.sandboxStopsRemainingToday,
      5,
    );
    const refused = await s.request('POST', '/api/v1/plans', { key, body: body(6) });
    assert.deepEqual([refused.status, refused.body.error, refused.body.limit], [429, 'sandbox_rate_limited', 25]);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  });
});

test('one travel matrix over the distinct points: six vans at one depot and a stop at the depot are one row', async () => {
  const osrm = await startFakeOsrm();
  try {
    await withServer({ env: { ROUTING: 'osrm', OSRM_URL: osrm.url, PLANS_SOLVER_TIME_LIMIT_MS: '100' } }, async (s) => {
      const key = await s.createKey('live', 10);
      const vehicles = Array.from({ length: 6 }, (_, k) => ({ id: `van-${k}`, start: PARIS_START, end: PARIS_START }));
      const stops = [...coordinateStops(4), { id: 'at-depot', ...PARIS_START }];
      const res = await s.request('POST', '/api/v1/plans', {
        key,
        body: { departureTime: DEPARTURE, vehicles, stops },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(osrm.requests.length, 1);
      assert.equal(osrm.requests[0]!.coordinates.length, 5);
      assert.deepEqual(
        await planProblems(
          { departureTime: DEPARTURE, vehicles, stops },
          res.body,
          new OsrmProvider({ baseUrl: osrm.url }),
        ),
        [],
      );
    });
  } finally {
    await osrm.close();
  }
});

test(
  '1000 stops and 20 vans end to end: through OSRM in blocks (fake, --max-table-size 100), and through the built-in model',
  { timeout: 120_000 },
  async () => {
    const osrm = await startFakeOsrm({ maxTableSize: 100 });
    const stops = coordinateStops(1000, 21).map((s, i) => ({ ...s, serviceSeconds: 60, demand: [1 + (i % 5)] }));
    const vehicles = Array.from({ length: 20 }, (_, k) => ({
      id: `van-${k + 1}`,
      start: PARIS_START,
      end: PARIS_START,
      capacity: [200],
      shift: { start: '07:00', end: '19:00' },
    }));
    const request = { departureTime: DEPARTURE, vehicles, stops };
    try {
      for (const [routing, checker] of [
        [{ ROUTING: 'osrm', OSRM_URL: osrm.url }, new OsrmProvider({ baseUrl: osrm.url })],
        [{ ROUTING: 'haversine' }, createRoutingProvider('haversine')],
      ] as const) {
        await withServer({ env: { ...routing, PLANS_SOLVER_TIME_LIMIT_MS: '300' } }, async (s) => {
          const key = await s.createKey('live', 1000);
          const res = await s.request('POST', '/api/v1/plans', { key, body: request });
          assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
          assert.deepEqual(await planProblems(request, res.body, checker), []);
          assert.equal(res.body.totals.stops, 1000);
          assert.deepEqual([res.body.stopsCharged, res.body.stopsBalance], [1000, 0]);
        });
      }
      assert.ok(
        osrm.requests.length > 1 && osrm.requests.every((r) => r.coordinates.length <= 100),
        `${osrm.requests.length} blocks`,
      );
    } finally {
      await osrm.close();
    }
  },
);
