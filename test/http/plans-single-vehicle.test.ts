/**
 * POST /api/v1/plans with one vehicle and no fleet-only rule takes optimize's path (solver-rs/src/fleet/single.rs):
 * the exact order at 8 stops, and beyond, the very route /api/v1/optimize gives for the same stops; a plan with a
 * fleet-only rule (a notBefore that makes the van wait, a capacity that leaves a stop out) still gets a valid plan.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { createRoutingProvider, type RoutingProvider } from '../../src/geo/index.js';
import { planProblems } from '../helpers/plan-invariants.js';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let key: string;
let haversine: RoutingProvider;
// budgets far above what the searches take: both end at their convergence stop, so equal inputs give equal routes
before(async () => {
  server = await startTestServer({
    env: { SOLVER_TIME_LIMIT_MS: '8000', PLANS_SOLVER_TIME_LIMIT_MS: '8000', PLANS_SOLVER_MS_PER_STOP: '1000' },
  });
  key = await server.createKey('live', 10_000);
  haversine = createRoutingProvider('haversine', {
    haversine: { circuityFactor: server.config.routing.circuityFactor },
  });
});
after(async () => {
  await server.close();
});

const DEPARTURE = '2026-06-01T08:00:00+02:00';

/** `count` stops with service times, with `deadlines` every third has one in the first hours of the day. */
const day = (count: number, seed: number, deadlines = true) =>
  coordinateStops(count, seed).map((s, i) => ({
    ...s,
    serviceSeconds: 120 + 60 * (i % 4),
    ...(deadlines && i % 3 === 0
      ? { deadline: `0${8 + (i % 2)}:${String(10 + ((i * 7) % 50)).padStart(2, '0')}` }
      : {}),
  }));

async function optimizeAndPlan(stops: ReturnType<typeof day>) {
  const route = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, end: PARIS_START, departureTime: DEPARTURE, stops },
  });
  assert.equal(route.status, 200, JSON.stringify(route.body));
  const request = { departureTime: DEPARTURE, vehicles: [{ id: 'van', start: PARIS_START, end: PARIS_START }], stops };
  const plan = await server.request('POST', '/api/v1/plans', { key, body: request });
  assert.equal(plan.status, 200, JSON.stringify(plan.body));
  assert.deepEqual(await planProblems(request, plan.body, haversine), []);
  assert.deepEqual(plan.body.unassigned, []);
  return { route: route.body, plan: plan.body.routes[0] };
}

test('a one-van plan of 8 stops gets the optimal order: the same as optimize, which is exact at 8', async () => {
  for (const seed of [1, 2, 3]) {
    const { route, plan } = await optimizeAndPlan(day(8, seed));
    assert.deepEqual(plan.order, route.order, `seed ${seed}`);
    assert.equal(plan.returnAt, route.returnAt, `seed ${seed}`);
    assert.deepEqual(plan.lateStops, route.lateStops, `seed ${seed}`);
  }
});

// the fleet search (before the single-route path) returned other routes here: at 60 stops with deadlines back 3 min
// earlier with 16 stops late instead of 14, at 100 stops without them 11 min longer
for (const [count, deadlines] of [
  [60, true],
  [100, false],
] as const) {
  test(`a one-van plan of ${count} stops ${deadlines ? 'with' : 'without'} deadlines gets the very route of optimize (the same search, seed and input)`, async () => {
    const { route, plan } = await optimizeAndPlan(day(count, 5, deadlines));
    assert.equal((route.lateStops ?? []).length > 0, deadlines);
    assert.deepEqual(plan.order, route.order);
    assert.equal(plan.returnAt, route.returnAt);
    assert.deepEqual(plan.lateStops, route.lateStops);
  });
}

test('one van with fleet-only rules (a wait for notBefore, a capacity that binds) still gets a valid plan', async () => {
  const stops = coordinateStops(8, 9).map((s, i) => ({
    ...s,
    serviceSeconds: 300,
    demand: [i === 7 ? 5 : 1],
    ...(i === 2 ? { notBefore: '09:00' } : {}),
  }));
  const request = {
    departureTime: DEPARTURE,
    vehicles: [{ id: 'van', start: PARIS_START, end: PARIS_START, capacity: [8] }],
    stops,
  };
  const res = await server.request('POST', '/api/v1/plans', { key, body: request });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(await planProblems(request, res.body, haversine), []);
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [['s8', 'capacity']],
  );
  const s3 = res.body.routes[0].schedule.find((e: any) => e.colisId === 's3');
  assert.ok((s3.serviceStart ?? s3.arrivee) >= '2026-06-01T07:00:00Z', `served from 09:00: ${JSON.stringify(s3)}`);
});
