/**
 * POST /api/v1/plans with shipments: each pickup and its delivery on the same vehicle, pickup first, the load
 * within capacity at every step; a shipment bills two stops (sync and async); one that cannot fit is unassigned
 * whole and listed once; validation names the field and the fix.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '150', JOB_POLL_MS: '100' } });
});
after(async () => {
  await server.close();
});

const DEPARTURE = '2026-06-01T07:30:00+02:00';
const van = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  start: PARIS_START,
  end: PARIS_START,
  ...extra,
});
const point = (k: number) => {
  const { latitude, longitude } = coordinateStops(12, 7)[k]!;
  return { latitude, longitude };
};
const shipment = (id: string, k: number, extra: Record<string, unknown> = {}) => ({
  id,
  pickup: { ...point(2 * k), serviceSeconds: 120 },
  delivery: { ...point(2 * k + 1), serviceSeconds: 60 },
  ...extra,
});
const plan = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request('POST', '/api/v1/plans', { key, body, headers });

/** Per route: the steps of each shipment, and the load after every step. */
function checkShipments(body: any, capacity: number[], shipmentIds: string[]): Map<string, string> {
  const vehicleOf = new Map<string, string>();
  for (const route of body.routes) {
    const seen = new Map<string, number>();
    route.steps.forEach((step: any, k: number) => {
      for (const [d, l] of step.load.entries()) assert.ok(l >= 0 && l <= capacity[d]!, `load ${l} at step ${k}`);
      if (step.type === 'pickup') {
        assert.ok(!seen.has(step.id), `${step.id} picked up twice`);
        seen.set(step.id, k);
      }
      if (step.type === 'delivery') {
        assert.ok(seen.has(step.id), `${step.id} delivered before its pickup or on another vehicle`);
        vehicleOf.set(step.id, route.vehicleId);
        seen.delete(step.id);
      }
    });
    assert.equal(seen.size, 0, `picked up and never delivered: ${[...seen.keys()]}`);
  }
  for (const id of shipmentIds)
    assert.equal(
      vehicleOf.has(id),
      !body.unassigned.some((u: any) => u.id === id),
      `${id}: either routed or unassigned`,
    );
  return vehicleOf;
}

test('live key: pickups before their deliveries on one vehicle, loads within capacity, two stops billed per shipment', async () => {
  const key = await server.createKey('live', 100);
  const body = {
    departureTime: DEPARTURE,
    vehicles: [van('a', { capacity: [10] }), van('b', { capacity: [10] })],
    stops: coordinateStops(3, 3).map((s) => ({ ...s, demand: [3] })),
    shipments: [
      shipment('r1', 0, { demand: [6] }),
      shipment('r2', 1, { demand: [6] }),
      shipment('r3', 2, { demand: [4] }),
    ],
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.unassigned, []);
  checkShipments(res.body, [10], ['r1', 'r2', 'r3']);
  const steps = res.body.routes.flatMap((r: any) => r.steps.filter((s: any) => s.type !== 'start' && s.type !== 'end'));
  assert.equal(steps.filter((s: any) => s.type === 'pickup').length, 3);
  assert.equal(steps.filter((s: any) => s.type === 'delivery').length, 3);
  // the shipment's id stands in order/schedule at its pickup and its delivery
  const order = res.body.routes.flatMap((r: any) => r.order);
  assert.equal(order.filter((id: string) => id === 'r1').length, 2);
  assert.deepEqual([res.body.stopsCharged, res.body.stopsBalance], [9, 91]);
  assert.deepEqual([res.body.totals.stops, res.body.totals.assigned, res.body.totals.unassigned], [9, 9, 0]);
});

test('a shipment that fits no vehicle is unassigned whole, listed once, billed two; the others are planned', async () => {
  const key = await server.createKey('live', 100);
  const body = {
    departureTime: DEPARTURE,
    vehicles: [van('a', { capacity: [10] })],
    stops: coordinateStops(2, 5),
    shipments: [shipment('piano', 0, { demand: [25] }), shipment('box', 1, { demand: [2] })],
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [['piano', 'capacity']],
  );
  assert.match(
    res.body.unassigned[0].message,
    /Shipment "piano" was not planned \(neither its pickup nor its delivery\)/,
  );
  const ids = res.body.routes.flatMap((r: any) => r.steps.map((s: any) => s.id));
  assert.ok(!ids.includes('piano'), 'no half of the refused shipment is routed');
  checkShipments(res.body, [10], ['piano', 'box']);
  assert.deepEqual([res.body.stopsCharged, res.body.totals.unassigned, res.body.totals.stops], [6, 2, 6]);
});

test('allowedVehicles of a shipment hold for both ends', async () => {
  const key = await server.createKey('test');
  const body = {
    departureTime: DEPARTURE,
    vehicles: [van('a'), van('b')],
    stops: coordinateStops(2, 9),
    shipments: [shipment('r1', 0, { allowedVehicles: ['b'] }), shipment('r2', 1, { allowedVehicles: ['b'] })],
  };
  const res = await plan(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const vehicleOf = checkShipments(res.body, [], ['r1', 'r2']);
  assert.deepEqual([vehicleOf.get('r1'), vehicleOf.get('r2')], ['b', 'b']);
  assert.equal(res.body.stopsCharged, 0);
});

test('asynchronous: a shipment is charged two stops at acceptance', async () => {
  const key = await server.createKey('live', 100);
  const body = { departureTime: DEPARTURE, vehicles: [van('a')], stops: [], shipments: [shipment('r1', 0)] };
  const res = await plan(key, body, { Prefer: 'respond-async' });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.deepEqual([res.body.stopsCharged, res.body.stopsBalance], [2, 98]);
});

test('the sandbox cap counts a shipment as two stops', async () => {
  const key = await server.createKey('test');
  const body = {
    departureTime: DEPARTURE,
    vehicles: [van('a')],
    stops: coordinateStops(5, 2),
    shipments: [shipment('r1', 0), shipment('r2', 1), shipment('r3', 2)],
  };
  const res = await plan(key, body);
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.error, 'sandbox_limit');
});

const base = () => ({
  departureTime: DEPARTURE,
  vehicles: [van('a', { capacity: [10] })],
  stops: coordinateStops(2, 4),
  shipments: [shipment('r1', 0, { demand: [2] })] as Array<Record<string, any>>,
});
const edit = (f: (b: ReturnType<typeof base>) => void) => {
  const b = base();
  f(b);
  return b;
};

const INVALID: Array<{ name: string; body: unknown; param: string; message: RegExp }> = [
  {
    name: 'a shipment id that repeats a stop id',
    body: edit((b) => (b.shipments[0]!.id = 's1')),
    param: 'shipments[0].id',
    message: /repeats stops\[0\]\.id: stop and shipment ids must be unique/,
  },
  {
    name: 'two shipments with one id',
    body: edit((b) => b.shipments.push(shipment('r1', 1))),
    param: 'shipments[1].id',
    message: /repeats shipments\[0\]\.id/,
  },
  {
    name: 'a shipment without a delivery',
    body: edit((b) => delete b.shipments[0]!.delivery),
    param: 'shipments[0].delivery',
    message: /delivery is required/,
  },
  {
    name: 'an id on a shipment end',
    body: edit((b) => (b.shipments[0]!.pickup.id = 'x')),
    param: 'shipments[0].pickup.id',
    message: /belong to the shipment itself \(shipments\[0\]\.id\), not to its pickup or delivery/,
  },
  {
    name: 'a demand of the wrong length',
    body: edit((b) => (b.shipments[0]!.demand = [1, 2])),
    param: 'shipments[0].demand',
    message: /has 2 dimensions but the vehicles' capacity has 1/,
  },
  {
    name: 'an unknown allowed vehicle',
    body: edit((b) => (b.shipments[0]!.allowedVehicles = ['zz'])),
    param: 'shipments[0].allowedVehicles[0]',
    message: /is not the id of a vehicle of this call/,
  },
  {
    name: 'a delivery window that ends before it starts',
    body: edit((b) => (b.shipments[0]!.delivery.timeWindows = [{ start: '12:00', end: '10:00' }])),
    param: 'shipments[0].delivery.timeWindows[0].end',
    message: /must be after its start/,
  },
  {
    name: 'one shipment alone would be 2 stops: fine; no stop and no shipment is not',
    body: edit((b) => {
      b.stops = [];
      b.shipments = [];
    }),
    param: 'stops',
    message: /a plan needs 2 to 1000 stops \(got 0\)/,
  },
  {
    name: '999 stops and one shipment: 1001 stops',
    body: edit((b) => (b.stops = coordinateStops(999))),
    param: 'shipments',
    message: /at most 1000 stops \(got 1001: 999 stops and 1 shipments, a shipment counting two\)/,
  },
];

for (const c of INVALID) {
  test(`400: ${c.name}`, async () => {
    const key = await server.createKey('live', 10);
    const res = await plan(key, c.body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.param, c.param);
    assert.match(res.body.message, c.message);
  });
}
