/**
 * POST /api/v1/plans with vehicle costs and the balance option: each route's cost and the total come back only when
 * costs are used and add up as documented; the cheaper vehicle takes the day; balance evens the routes while every
 * hard rule holds; bad input answers 400 naming the field and the fix.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';
import { planProblems } from '../helpers/plan-invariants.js';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '300' } });
  key = await server.createKey('live', 10_000);
});
after(async () => {
  await server.close();
});

const DEPARTURE = '2026-06-01T08:00:00+02:00';
const van = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  start: PARIS_START,
  end: PARIS_START,
  ...extra,
});
const plan = (body: Record<string, unknown>) =>
  server.request('POST', '/api/v1/plans', { key, body: { departureTime: DEPARTURE, ...body } });
const seconds = (route: any) => (Date.parse(route.returnAt) - Date.parse(route.departAt)) / 1000;
const metres = (route: any) => route.steps.reduce((m: number, s: any) => m + s.distanceM, 0);

test('with costs, each route and the totals carry the cost: fixed + perHour × hours + perKm × km', async () => {
  const costs = { fixed: 40, perHour: 30, perKm: 0.5 };
  const res = await plan({
    vehicles: [van('a', { costs, capacity: [4] }), van('b', { capacity: [4] })],
    stops: coordinateStops(7).map((s) => ({ ...s, demand: [1], serviceSeconds: 300 })),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.routes.length, 2, 'capacity 4 + 4 for 7 stops: both vans go');
  for (const route of res.body.routes) {
    const expected =
      route.vehicleId === 'a'
        ? costs.fixed + (costs.perHour * seconds(route)) / 3600 + (costs.perKm * metres(route)) / 1000
        : 0;
    assert.ok(Math.abs(route.cost - expected) <= 0.011, `${route.vehicleId}: ${route.cost} vs ${expected}`);
  }
  const sum = res.body.routes.reduce((c: number, r: any) => c + r.cost, 0);
  assert.ok(Math.abs(res.body.totals.cost - sum) < 1e-9, `${res.body.totals.cost} vs ${sum}`);
  // the free van takes the larger share: it costs nothing per hour
  const stopsOf = (id: string) => res.body.routes.find((r: any) => r.vehicleId === id).order.length;
  assert.equal(stopsOf('b'), 4);
});

test('without costs, no cost field anywhere', async () => {
  const res = await plan({ vehicles: [van('a')], stops: coordinateStops(3) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal('cost' in res.body.totals, false);
  assert.equal('cost' in res.body.routes[0], false);
});

test('the cheaper vehicle takes the day', async () => {
  const stops = coordinateStops(6).map((s) => ({ ...s, serviceSeconds: 120 }));
  for (const [cheap, dear] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    const vehicles = [van('a'), van('b')].map((v) => ({
      ...v,
      costs: { fixed: 20, perHour: v.id === cheap ? 15 : 60 },
    }));
    const res = await plan({ vehicles, stops });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.routes.map((r: any) => r.vehicleId),
      [cheap],
      `${dear} costs four times as much per hour`,
    );
  }
});

/** 20 stops, 3 vans of capacity 18 (two are needed; the plain plan gives one of them 2 stops). */
const day = (balance?: string) => ({
  vehicles: ['a', 'b', 'c'].map((id) => van(id, { capacity: [18], shift: { start: '08:00', end: '18:00' } })),
  stops: coordinateStops(20, 7).map((s) => ({ ...s, demand: [1], serviceSeconds: 240 })),
  ...(balance ? { balance } : {}),
});
const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);

test('balance evens the routes of a day without adding a vehicle, every hard rule kept', async () => {
  const plain = await plan(day());
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  const stopsPlain = plain.body.routes.map((r: any) => r.order.length);
  const durationsPlain = plain.body.routes.map(seconds);
  for (const balance of ['stops', 'duration']) {
    const res = await plan(day(balance));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await planProblems({ departureTime: DEPARTURE, ...day(balance) }, res.body), []);
    assert.deepEqual(res.body.unassigned, []);
    assert.equal(res.body.totals.vehiclesUsed, plain.body.totals.vehiclesUsed, 'no vehicle added');
    const stops = res.body.routes.map((r: any) => r.order.length);
    const durations = res.body.routes.map(seconds);
    if (balance === 'stops')
      assert.ok(spread(stops) < spread(stopsPlain), `stops ${JSON.stringify(stops)} vs ${JSON.stringify(stopsPlain)}`);
    else
      assert.ok(
        spread(durations) < spread(durationsPlain),
        `durations ${JSON.stringify(durations)} vs ${JSON.stringify(durationsPlain)}`,
      );
  }
});

const CASES: Array<{ name: string; edit: (b: any) => void; param: string; message: RegExp }> = [
  {
    name: 'empty costs',
    edit: (b) => (b.vehicles[0].costs = {}),
    param: 'vehicles[0].costs',
    message: /vehicles\[0\]\.costs must give at least one of fixed, perHour, perKm/,
  },
  {
    name: 'a negative perHour',
    edit: (b) => (b.vehicles[0].costs = { perHour: -1 }),
    param: 'vehicles[0].costs.perHour',
    message: /must be a number from 0 to 10000/,
  },
  {
    name: 'a fixed cost above the maximum',
    edit: (b) => (b.vehicles[0].costs = { fixed: 1e6 }),
    param: 'vehicles[0].costs.fixed',
    message: /must be a number from 0 to 100000/,
  },
  {
    name: 'an unknown cost',
    edit: (b) => (b.vehicles[0].costs = { perStop: 1 }),
    param: 'vehicles[0].costs.perStop',
    message: /unknown property "perStop"/,
  },
  {
    name: 'an unknown balance',
    edit: (b) => (b.balance = 'even'),
    param: 'balance',
    message: /balance must be one of none, stops, duration/,
  },
];

for (const c of CASES) {
  test(`400 invalid_request: ${c.name}`, async () => {
    const body: any = { vehicles: [van('a')], stops: coordinateStops(2) };
    c.edit(body);
    const res = await plan(body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.param ?? '', c.param, res.body.message);
    assert.match(res.body.message, c.message);
  });
}
