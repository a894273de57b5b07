/**
 * POST /api/v1/vroom with shipments and job pickups, end to end. These need the fleet solver to honour
 * FleetProblem.shipments and FleetJob.pickup (issue-26ship): on a branch without them they fail, which is why
 * they live apart from test/http/vroom.test.ts.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '300' } });
});
after(() => server.close());

const vroom = async (body: unknown, stops = 20) =>
  server.request('POST', '/api/v1/vroom', { key: await server.createKey('live', stops), body });

/** The load after each step never exceeds the vehicle's capacity and moves as VROOM's rules say. */
function checkLoads(
  route: any,
  capacity: number[],
  tasks: Map<string, { delivery: number[]; pickup: number[] }>,
): void {
  let load: number[] = route.steps[0].load;
  for (const step of route.steps.slice(1)) {
    if (step.type !== 'end') {
      const t = tasks.get(`${step.type} ${step.id}`)!;
      load = load.map((q, d) => q - t.delivery[d]! + t.pickup[d]!);
    }
    assert.deepEqual(step.load, load, `load after ${step.type} ${step.id ?? ''}`);
    load.forEach((q, d) => assert.ok(q >= 0 && q <= capacity[d]!, `load ${q} within capacity ${capacity[d]}`));
  }
}

test("VROOM's example 1 without its break: code 0, the shipment picked up before it is delivered, loads within capacity", async () => {
  const body = JSON.parse(readFileSync(new URL('../fixtures/vroom/example_1.json', import.meta.url), 'utf8'));
  delete body.vehicles[1].breaks;
  const res = await vroom(body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 0);
  assert.equal(res.body.stopsCharged, 6, 'four jobs and a shipment (two stops)');
  assert.deepEqual(res.body.unassigned, []);
  const tasks = new Map<string, { delivery: number[]; pickup: number[] }>();
  for (const j of body.jobs) tasks.set(`job ${j.id}`, { delivery: j.delivery ?? [0], pickup: j.pickup ?? [0] });
  tasks.set('pickup 4', { delivery: [0], pickup: [1] });
  tasks.set('delivery 3', { delivery: [1], pickup: [0] });
  for (const route of res.body.routes) checkLoads(route, [4], tasks);
  const carrying = res.body.routes.find((r: any) => r.steps.some((s: any) => s.type === 'pickup'));
  assert.equal(carrying.vehicle, 2, 'the shipment needs skill 2');
  const kinds = carrying.steps.map((s: any) => s.type);
  assert.ok(kinds.indexOf('pickup') < kinds.indexOf('delivery'), 'picked up, then delivered, by the same vehicle');
  const withJob2 = res.body.routes.find((r: any) => r.steps.some((s: any) => s.id === 2 && s.type === 'job'));
  assert.equal(withJob2.steps.at(-1).load[0] >= 1, true, "job 2's pickup is carried to the end");
  assert.deepEqual(res.body.summary.pickup, [2]);
  assert.deepEqual(res.body.summary.delivery, [4]);
});

test('a delivery and a pickup that only fit in that order: the load empties before it fills', async () => {
  const res = await vroom({
    vehicles: [{ id: 1, start_index: 0, end_index: 0, capacity: [2] }],
    jobs: [
      // the pickup comes first on the short loop: without its load the solver would take it first
      { id: 1, location_index: 2, delivery: [2] },
      { id: 2, location_index: 1, pickup: [2] },
    ],
    matrices: {
      car: {
        durations: [
          // the loop 0 → 1 → 2 → 0 is 300 s, the other way round 2700 s
          [0, 100, 900],
          [900, 0, 100],
          [100, 900, 0],
        ],
      },
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const steps = res.body.routes[0].steps;
  assert.deepEqual(
    steps.map((s: any) => [s.type, s.id, s.load[0]]),
    [
      ['start', undefined, 2],
      ['job', 1, 0],
      ['job', 2, 2],
      ['end', undefined, 2],
    ],
  );
});

test('a shipment no vehicle can carry: its pickup and its delivery are both unassigned, both charged', async () => {
  const res = await vroom({
    vehicles: [{ id: 1, start: [2.35, 48.85], capacity: [3] }],
    jobs: [{ id: 1, location: [2.34, 48.86], delivery: [1] }],
    shipments: [
      {
        amount: [5],
        pickup: { id: 7, location: [2.33, 48.86], description: 'crate' },
        delivery: { id: 8, location: [2.36, 48.84] },
      },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.stopsCharged, 3);
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.type, u.id]),
    [
      ['pickup', 7],
      ['delivery', 8],
    ],
  );
  assert.equal(res.body.unassigned[0].description, 'crate');
  assert.equal(res.body.summary.unassigned, 2);
});
