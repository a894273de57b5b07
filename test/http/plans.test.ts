import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PLAN_REQUEST_EXAMPLES } from '../../src/api/openapi/plan-examples.js';
import { createRoutingProvider, type RoutingProvider } from '../../src/geo/index.js';
import { planProblems } from '../helpers/plan-invariants.js';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let haversine: RoutingProvider;
// a small solver budget keeps the tests fast (a plan's budget is min(ceiling, max(200, 10 ms × stops)))
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '150' } });
  haversine = createRoutingProvider('haversine', {
    haversine: { circuityFactor: server.config.routing.circuityFactor },
  });
});
after(async () => {
  await server.close();
});

const DEPARTURE = '2026-06-01T07:30:00+02:00';
const example = structuredClone(PLAN_REQUEST_EXAMPLES.fleet.value);
const van = (id: string, extra: Record<string, unknown> = {}) => ({ id, start: PARIS_START, ...extra });
const plan = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request('POST', '/api/v1/plans', { key, body, headers });

async function assertValidPlan(request: unknown, body: unknown): Promise<void> {
  assert.deepEqual(await planProblems(request, body, haversine), []);
}

test('test key: the documented example: two vans, waiting for notBefore, the heavy stop unassigned for capacity; quotas as optimize', async () => {
  const key = await server.createKey('test');
  const res = await plan(key, example);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertValidPlan(example, res.body);
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [['piano', 'capacity']],
  );
  assert.match(res.body.unassigned[0].message, /capacity/);
  const van2 = res.body.routes.find((r: any) => r.vehicleId === 'van-2');
  assert.ok(van2.order.includes('bastille'), 'bastille is allowed only on van-2');
  const etoile = res.body.routes.flatMap((r: any) => r.schedule).find((e: any) => e.colisId === 'etoile');
  assert.ok(
    etoile.serviceStart === undefined || etoile.serviceStart === '2026-06-01T08:30:00Z',
    JSON.stringify(etoile),
  );
  assert.deepEqual(
    [res.body.stopsCharged, res.body.sandbox, res.body.sandboxStopsRemainingToday, res.body.stopsBalance],
    [0, true, 193, undefined],
  );
  assert.equal(res.headers.get('ratelimit-remaining'), '19');
});

test('capacity forces a second vehicle; each load stays within its capacity', async () => {
  const key = await server.createKey('test');
  const body = {
    departureTime: DEPARTURE,
    vehicles: [van('a', { capacity: [10] }), van('b', { capacity: [10] })],
    stops: coordinateStops(4).map((s) => ({ ...s, demand: [5] })),
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertValidPlan(body, res.body);
  assert.deepEqual(res.body.unassigned, []);
  assert.deepEqual(
    res.body.routes.map((r: any) => r.load),
    [[10], [10]],
  );
  for (const r of res.body.routes) assert.ok(r.load[0] <= 10, JSON.stringify(r.load));
});

test('allowedVehicles: restricted stops ride only on their vehicles; fewest vehicles otherwise', async () => {
  const key = await server.createKey('test');
  const stops = coordinateStops(6, 3).map((s, i) => (i < 2 ? { ...s, allowedVehicles: ['c'] } : s));
  const body = { departureTime: DEPARTURE, vehicles: [van('a'), van('b'), van('c')], stops };
  const res = await plan(key, body);
  assert.equal(res.status, 200);
  await assertValidPlan(body, res.body);
  assert.deepEqual(
    res.body.routes.map((r: any) => r.vehicleId),
    ['c'],
    'one vehicle is enough, and only c may serve s1 and s2',
  );
  assert.equal(res.body.totals.vehiclesUsed, 1);
});

test('shifts and notBefore: a stop after every shift is unassigned (shift); waiting and shift ends hold; unassigned stops are charged', async () => {
  const key = await server.createKey('live', 20);
  const stops = coordinateStops(6, 9).map((s, i) => ({
    ...s,
    serviceSeconds: 600,
    ...(i === 0 ? { notBefore: '10:00' } : {}),
    ...(i === 1 ? { notBefore: '17:00' } : {}),
    ...(i === 2 ? { deadline: '07:40' } : {}),
  }));
  const body = {
    departureTime: DEPARTURE,
    vehicles: [
      van('early', { end: PARIS_START, shift: { start: '08:00', end: '11:00' } }),
      van('late', { shift: { start: '09:00', end: '12:00' }, maxStops: 2 }),
    ],
    stops,
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertValidPlan(body, res.body);
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [['s2', 'shift']],
  );
  assert.match(res.body.unassigned[0].message, /^Stop "s2" was not planned: .*shift/);
  const waited = res.body.routes.flatMap((r: any) => r.schedule).find((e: any) => e.colisId === 's1');
  assert.ok(waited.serviceStart === undefined || waited.serviceStart === '2026-06-01T08:00:00Z');
  // the deadline 07:40 is before any shift starts: late, reported as optimize does
  assert.equal(res.body.totals.lateStops, 1);
  assert.deepEqual([res.body.stopsCharged, res.body.stopsBalance], [6, 14]);
});

test('live key: one stop debited per stop sent; 402 with nothing taken when short; the ledger is exact', async () => {
  const key = await server.createKey('live', 15);
  const body = { departureTime: DEPARTURE, vehicles: [van('a'), van('b')], stops: coordinateStops(12, 4) };
  const res = await plan(key, body);
  assert.equal(res.status, 200);
  await assertValidPlan(body, res.body);
  assert.deepEqual([res.body.stopsCharged, res.body.stopsBalance, res.body.sandbox], [12, 3, undefined]);
  const short = await plan(key, { ...body, stops: coordinateStops(4) });
  assert.equal(short.status, 402);
  assert.deepEqual([short.body.error, short.body.required, short.body.balance], ['insufficient_stops', 4, 3]);
  assert.deepEqual(await server.ledgerOf(key), { balance: 3, sum: 3, reasons: ['admin_credit', 'debit'] });
});

test('live key: addresses of vehicles and stops are geocoded; one that cannot be → 422 naming it, refunded', async () => {
  const key = await server.createKey('live', 10);
  const depot = { street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' };
  const body = {
    departureTime: DEPARTURE,
    vehicles: [{ id: 'v', start: depot, end: depot }],
    stops: [
      ...coordinateStops(2),
      { id: 'lyon', street: '10 rue de la République', postalCode: '69003', city: 'Lyon' },
    ],
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const lyon = res.body.routes[0].waypoints.find((w: any) => w.id === 'lyon');
  assert.equal(lyon.geocoding.provider, 'embedded');
  assert.ok(
    res.body.warnings.some((w: any) => w.location === 'start' && w.vehicleId === 'v' && /vehicle "v"/.test(w.message)),
    JSON.stringify(res.body.warnings),
  );
  const bad = await plan(key, {
    ...body,
    vehicles: [{ id: 'v', start: { street: '1 rue', postalCode: '99999', city: 'Nulle-Part' } }],
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error, 'geocoding_failed');
  assert.match(bad.body.message, /vehicles\[0\]\.start \(id "v"\)/);
  assert.deepEqual(await server.ledgerOf(key), {
    balance: 7,
    sum: 7,
    reasons: ['admin_credit', 'debit', 'debit', 'refund'],
  });
});

test('sandbox: more than 10 stops → 400 sandbox_limit; an address anywhere → 400 sandbox_addresses_unsupported; nothing counted', async () => {
  const key = await server.createKey('test');
  const tooMany = await plan(key, { vehicles: [van('a')], stops: coordinateStops(11) });
  assert.deepEqual([tooMany.status, tooMany.body.error], [400, 'sandbox_limit']);
  const address = { street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' };
  for (const body of [
    { vehicles: [{ id: 'a', start: address }], stops: coordinateStops(2) },
    { vehicles: [van('a', { end: address })], stops: coordinateStops(2) },
    { vehicles: [van('a')], stops: [...coordinateStops(1), { id: 'x', ...address }] },
  ]) {
    const res = await plan(key, body);
    assert.deepEqual([res.status, res.body.error], [400, 'sandbox_addresses_unsupported']);
  }
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key })).body, {
    sandbox: true,
    sandboxStopsRemainingToday: 200,
    sandboxCallsRemainingThisMinute: 20,
  });
});

test('Idempotency-Key: a replay returns the same body without a second debit; another body → 409; the key of a plan is a conflict on optimize and back', async () => {
  const key = await server.createKey('live', 30);
  const body = { departureTime: DEPARTURE, vehicles: [van('a'), van('b')], stops: coordinateStops(5, 2) };
  const first = await plan(key, body, { 'Idempotency-Key': 'day-1' });
  assert.equal(first.status, 200);
  const replay = await plan(key, body, { 'Idempotency-Key': 'day-1' });
  assert.deepEqual([replay.status, replay.headers.get('idempotent-replayed')], [200, 'true']);
  assert.deepEqual(replay.body, first.body);
  const conflict = await plan(key, { ...body, avoidTolls: true }, { 'Idempotency-Key': 'day-1' });
  assert.deepEqual([conflict.status, conflict.body.error], [409, 'idempotency_conflict']);
  const onOptimize = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(5, 2) },
    headers: { 'Idempotency-Key': 'day-1' },
  });
  assert.deepEqual([onOptimize.status, onOptimize.body.error], [409, 'idempotency_conflict']);
  const optimized = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(3) },
    headers: { 'Idempotency-Key': 'route-1' },
  });
  assert.equal(optimized.status, 200);
  const onPlans = await plan(key, { start: PARIS_START, stops: coordinateStops(3) }, { 'Idempotency-Key': 'route-1' });
  assert.equal(onPlans.status, 400, 'an optimize body is not a plan');
  const samePlanBody = await plan(key, body, { 'Idempotency-Key': 'route-1' });
  assert.deepEqual([samePlanBody.status, samePlanBody.body.error], [409, 'idempotency_conflict']);
  assert.deepEqual(await server.ledgerOf(key), { balance: 22, sum: 22, reasons: ['admin_credit', 'debit', 'debit'] });
});

test('six vans at one depot, 30 stops with demands: at least five vans, each leaving at its shift start, the plan is valid', async () => {
  const key = await server.createKey('live', 30);
  const body = {
    departureTime: DEPARTURE,
    vehicles: Array.from({ length: 6 }, (_, k) =>
      van(`van-${k + 1}`, { end: PARIS_START, capacity: [12], shift: { start: '08:00', end: '18:00' } }),
    ),
    stops: coordinateStops(30, 11).map((s, i) => ({ ...s, demand: [1 + (i % 3)], serviceSeconds: 120 })),
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200);
  await assertValidPlan(body, res.body);
  assert.deepEqual(res.body.unassigned, []);
  // 60 units of demand in vans of 12: at least five vans
  assert.ok(res.body.routes.length >= 5, String(res.body.routes.length));
  assert.equal(
    res.body.routes.reduce((t: number, r: any) => t + r.load[0], 0),
    60,
  );
  for (const r of res.body.routes) assert.equal(r.departAt, '2026-06-01T06:00:00Z');
});

test('timeWindows: a van between two windows waits for the next; a window over before the departure is dropped; a stop left without one is unassigned (timeWindows)', async () => {
  const key = await server.createKey('test');
  const [a, b, c, d] = coordinateStops(4, 7);
  const body = {
    departureTime: DEPARTURE, // 07:30 Paris
    vehicles: [van('a')],
    stops: [
      // its first window ends before the van can get there; the second starts at 10:00 Paris = 08:00Z
      {
        ...a,
        timeWindows: [
          { start: '06:00', end: '07:31' },
          { start: '10:00', end: '11:00' },
        ],
      },
      { ...b, serviceSeconds: 120 },
      // every window is over at the departure
      { ...c, timeWindows: [{ start: '05:00', end: '06:00' }] },
      // cut at notBefore: 11:30 inside the second window
      {
        ...d,
        notBefore: '11:30',
        timeWindows: [
          { start: '08:00', end: '09:00' },
          { start: '11:00', end: '12:00' },
        ],
      },
    ],
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertValidPlan(body, res.body);
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [[c!.id, 'timeWindows']],
  );
  assert.match(res.body.unassigned[0].message, /timeWindows/);
  const entries = new Map(res.body.routes[0].schedule.map((e: any) => [e.colisId, e]));
  assert.equal((entries.get(a!.id) as any).serviceStart, '2026-06-01T08:00:00Z');
  assert.equal((entries.get(d!.id) as any).serviceStart, '2026-06-01T09:30:00Z');
  assert.equal((entries.get(b!.id) as any).serviceStart, undefined);
});

test('route limits: maxDistanceKm, maxDrivingMin and maxDurationMin are never exceeded; stops they keep out are unassigned (routeLimit)', async () => {
  const key = await server.createKey('test');
  const stops = coordinateStops(8, 11).map((s) => ({ ...s, serviceSeconds: 300 }));
  for (const [limit, value] of [
    ['maxDistanceKm', 9],
    ['maxDrivingMin', 25],
    ['maxDurationMin', 45],
  ] as const) {
    const body = { departureTime: DEPARTURE, vehicles: [van('a', { end: PARIS_START, [limit]: value })], stops };
    const res = await plan(key, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await assertValidPlan(body, res.body);
    assert.ok(
      res.body.unassigned.length > 0 && res.body.routes.length === 1,
      `${limit}: ${JSON.stringify(res.body.totals)}`,
    );
    for (const u of res.body.unassigned) assert.equal(u.reason, 'routeLimit', `${limit}: ${JSON.stringify(u)}`);
    assert.match(res.body.unassigned[0].message, /maxDurationMin, maxDrivingMin or maxDistanceKm/);
  }
  // without a limit every stop fits
  const free = await plan(key, { departureTime: DEPARTURE, vehicles: [van('a', { end: PARIS_START })], stops });
  assert.deepEqual(free.body.unassigned, []);
});

test('steps: each route is the full timeline, start → stops → end, with loads falling stop by stop and every leg', async () => {
  const key = await server.createKey('test');
  const body = {
    departureTime: DEPARTURE,
    vehicles: [van('a', { end: PARIS_START, capacity: [20, 5] }), van('b', { capacity: [20, 5] })],
    stops: coordinateStops(6, 5).map((s, i) => ({
      ...s,
      demand: [3 + i, 1],
      ...(i === 2 ? { notBefore: '10:00' } : {}),
    })),
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertValidPlan(body, res.body);
  const route = res.body.routes[0];
  const [start, ...rest] = route.steps;
  assert.deepEqual([start.type, start.id, start.distanceM, start.durationS], ['start', route.vehicleId, 0, 0]);
  assert.deepEqual(rest.at(-1).load, [0, 0]);
  assert.ok(rest.slice(0, -1).every((s: any) => s.type === 'stop' && s.distanceM > 0 && s.durationS > 0));
  assert.ok(
    route.steps.some((s: any) => s.serviceStart !== undefined) ||
      res.body.routes[1]?.steps.some((s: any) => s.serviceStart),
  );
});

test('priority: when not every stop fits, the higher priorities are kept; the others are unassigned (priority)', async () => {
  const key = await server.createKey('test');
  // room for two of the four stops (capacity 2, demand 1 each): the two of priority 90 are kept
  const stops = coordinateStops(4, 3).map((s, i) => ({ ...s, demand: [1], priority: i % 2 === 0 ? 0 : 90 }));
  const body = { departureTime: DEPARTURE, vehicles: [van('a', { capacity: [2] })], stops };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertValidPlan(body, res.body);
  assert.deepEqual([...res.body.routes[0].order].sort(), [stops[1]!.id, stops[3]!.id].sort());
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [
      [stops[0]!.id, 'priority'],
      [stops[2]!.id, 'priority'],
    ],
  );
  assert.match(res.body.unassigned[0].message, /higher priority/);
  // without priorities the capacity is the reason
  const flat = await plan(key, { ...body, stops: stops.map(({ priority: _, ...s }) => s) });
  assert.ok(flat.body.unassigned.every((u: any) => u.reason === 'capacity'));
});
