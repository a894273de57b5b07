/**
 * POST /api/v1/vroom in plan mode (`options.c: true`, src/api/vroom/plan.ts): VROOM's example 3 timed as given
 * with its violations, the arithmetic of arrivals, waits and delays on a matrix of our own, and the 400s of
 * steps that cannot be planned. Every answer is also checked against the OpenAPI document by the test server.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { VROOM_REQUEST_EXAMPLES } from '../../src/api/openapi/vroom-examples.js';
import { startFakeOsrm, type FakeOsrm } from '../fakes/osrm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(new URL(`../fixtures/vroom/${name}.json`, import.meta.url), 'utf8'));

let server: TestServer;
let osrm: FakeOsrm;
before(async () => {
  osrm = await startFakeOsrm();
  server = await startTestServer({ env: { ROUTING: 'osrm', OSRM_URL: osrm.url } });
});
after(async () => {
  await server.close();
  await osrm.close();
});

const vroom = (key: string, body: unknown) => server.request('POST', '/api/v1/vroom', { key, body });
const causes = (violations: any[]) => violations.map((v: any) => v.cause);

test("VROOM's example 3 with options.c answers code 0: both routes as given, vehicle 1 over capacity, vehicle 2 late", async () => {
  const key = await server.createKey('live', 20);
  const res = await vroom(key, { ...fixture('example_3'), options: { c: true, g: true } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 0);
  const [one, two] = res.body.routes;
  assert.deepEqual(
    one.steps.map((s: any) => [s.type, s.id]),
    [
      ['start', undefined],
      ['job', 1],
      ['job', 2],
      ['job', 5],
      ['end', undefined],
    ],
  );
  assert.deepEqual(
    two.steps.map((s: any) => [s.type, s.id]),
    [
      ['start', undefined],
      ['job', 6],
      ['job', 4],
      ['job', 3],
      ['end', undefined],
    ],
  );
  // 2 + 2 + 3 loaded at the start of a vehicle of capacity 4
  assert.deepEqual(one.steps[0].load, [7]);
  assert.ok(causes(one.steps[0].violations).includes('load'));
  assert.ok(causes(one.violations).includes('load'));
  assert.ok(causes(two.violations).includes('delay'), JSON.stringify(two.violations));
  // its start step's service_after is 800 s before its time_window opens: it leaves then, early
  assert.deepEqual(
    [two.steps[0].arrival, two.steps[0].violations],
    [1600415200, [{ cause: 'lead_time', duration: 800 }]],
  );
  // options.g draws the given routes
  assert.ok(one.geometry && two.geometry);
  assert.ok(causes(res.body.summary.violations).includes('load'));
  assert.deepEqual(res.body.unassigned, []);
  // billed as a solve: one stop per job
  assert.equal(res.body.stopsCharged, 6);
});

/** One vehicle, matrix rows 0 (depot), 1, 2, 3; `edit` changes it. */
function matrixPlan(edit: (body: any) => void = () => {}): any {
  const body: any = {
    vehicles: [
      {
        id: 7,
        start_index: 0,
        end_index: 0,
        time_window: [1000, 2000],
        capacity: [2],
        steps: [
          { type: 'start' },
          { type: 'job', id: 1 },
          { type: 'job', id: 2 },
          { type: 'job', id: 3 },
          { type: 'end' },
        ],
      },
    ],
    jobs: [
      { id: 1, location_index: 1, service: 10, delivery: [1], time_windows: [[1200, 1300]] },
      { id: 2, location_index: 2, service: 20, delivery: [1], time_windows: [[1000, 1300]] },
      {
        id: 3,
        location_index: 3,
        service: 5,
        delivery: [1],
        time_windows: [
          [1000, 1100],
          [1500, 1600],
        ],
      },
      { id: 4, location_index: 3, service: 5 },
    ],
    matrices: {
      car: {
        durations: [
          [0, 100, 200, 300],
          [100, 0, 50, 70],
          [200, 50, 0, 40],
          [300, 70, 40, 0],
        ],
      },
    },
    options: { c: true },
  };
  edit(body);
  return body;
}

test('plan mode: arrival = departure + travel, waits for a window to open, delay after every window, exactly', async () => {
  const key = await server.createKey('live', 20);
  const res = await vroom(key, matrixPlan());
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [route] = res.body.routes;
  assert.deepEqual(
    route.steps.map((s: any) => [s.type, s.id, s.arrival, s.waiting_time, s.duration, s.load, s.violations]),
    [
      // 3 tasks of 1 on a vehicle of 2: over capacity until the first is delivered
      ['start', undefined, 1000, 0, 0, [3], [{ cause: 'load' }]],
      // arrives at 1100, waits for 1200, leaves at 1210
      ['job', 1, 1100, 100, 100, [2], []],
      // 1210 + 50: inside [1000, 1300]; leaves at 1280
      ['job', 2, 1260, 0, 150, [1], []],
      // 1280 + 40 = 1320: after [1000, 1100], waits for [1500, 1600]; leaves 1505
      ['job', 3, 1320, 180, 190, [0], []],
      ['end', undefined, 1805, 0, 490, [0], []],
    ],
  );
  assert.deepEqual(route.violations, [{ cause: 'load' }]);
  assert.equal(route.waiting_time, 280);
  assert.equal(route.cost, 490);
  // job 4 is in no vehicle's steps
  assert.deepEqual(
    res.body.unassigned.map((u: any) => [u.id, u.reason]),
    [[4, 'unplanned']],
  );
  // billed as a solve: one stop per job given, planned or not
  assert.equal(res.body.stopsCharged, 4);

  // service_before 1400 at job 3 bounds the wait: it starts at 1400, 100 s before its window (lead_time);
  // a shorter last window makes job 3 late instead, and the return after the shift is a delay too
  const bounded = await vroom(
    key,
    matrixPlan((b) => (b.vehicles[0].steps[3].service_before = 1400)),
  );
  const three = bounded.body.routes[0].steps[3];
  assert.deepEqual(
    [three.arrival, three.waiting_time, three.violations],
    [1320, 80, [{ cause: 'lead_time', duration: 100 }]],
  );
  const late = await vroom(
    key,
    matrixPlan((b) => {
      b.jobs[2].time_windows = [[1000, 1100]];
      b.vehicles[0].time_window = [1000, 1500];
    }),
  );
  const lateSteps = late.body.routes[0].steps;
  assert.deepEqual(lateSteps[3].violations, [{ cause: 'delay', duration: 220 }]);
  // leaves job 3 at 1325, back at 1625: 125 s after the shift ends
  assert.deepEqual([lateSteps[4].arrival, lateSteps[4].violations], [1625, [{ cause: 'delay', duration: 125 }]]);
  assert.deepEqual(late.body.summary.violations, [{ cause: 'load' }, { cause: 'delay', duration: 345 }]);
});

test("plan mode: a delivery before its pickup, a missing break, skills and max_tasks are reported VROOM's way", async () => {
  const key = await server.createKey('live', 20);
  const res = await vroom(
    key,
    matrixPlan((b) => {
      b.jobs = b.jobs.slice(0, 1);
      b.jobs[0].skills = [5];
      b.shipments = [{ amount: [1], pickup: { id: 8, location_index: 2 }, delivery: { id: 9, location_index: 3 } }];
      b.vehicles[0].max_tasks = 2;
      // the first leg is 100 s (row 0 → 1): every later step is over
      b.vehicles[0].max_travel_time = 100;
      b.vehicles[0].breaks = [{ id: 1, time_windows: [[1000, 1900]], service: 60 }];
      b.vehicles[0].steps = [
        { type: 'start' },
        { type: 'job', id: 1 },
        { type: 'delivery', id: 9 },
        { type: 'pickup', id: 8 },
        { type: 'end' },
      ];
    }),
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const steps = res.body.routes[0].steps;
  assert.deepEqual(causes(steps[1].violations), ['skills']);
  assert.deepEqual(causes(steps[2].violations), ['max_travel_time', 'precedence']);
  assert.deepEqual(causes(steps[3].violations), ['max_travel_time', 'max_tasks', 'precedence']);
  // delivered before it is picked up: carried from the start, so never below 0 on board
  assert.deepEqual(
    steps.map((s: any) => s.load[0]),
    [2, 1, 0, 1, 1],
  );
  assert.deepEqual(causes(res.body.routes[0].violations), [
    'skills',
    'max_travel_time',
    'precedence',
    'max_tasks',
    'missing_break',
  ]);
});

test('plan mode: an unknown id, a task in two routes, a vehicle without steps answer 400 naming the step', async () => {
  const key = await server.createKey('live', 20);
  const cases: Array<[string, (b: any) => void, RegExp]> = [
    ['vehicles[0].steps[2].id', (b) => (b.vehicles[0].steps[2].id = 99), /there is no job with id 99/],
    ['vehicles[0].steps[2].id', (b) => (b.vehicles[0].steps[2].type = 'break'), /vehicle 7 has no break 2/],
    [
      'vehicles[1].steps[1]',
      (b) => b.vehicles.push({ id: 8, start_index: 0, steps: [{ type: 'start' }, { type: 'job', id: 2 }] }),
      /job 2 is already in vehicles\[0\]\.steps\[2\]/,
    ],
    ['vehicles[1].steps', (b) => b.vehicles.push({ id: 8, start_index: 0 }), /"steps": \[\]/],
    [
      'vehicles[0].steps[2]',
      (b) => {
        b.vehicles[0].breaks = [{ id: 1, time_windows: [[0, 9000]] }];
        b.vehicles[0].steps.splice(1, 0, { type: 'break', id: 1 }, { type: 'break', id: 1 });
      },
      /break 1 is already in vehicle 7's steps/,
    ],
    ['vehicles[0].steps[1]', (b) => b.vehicles[0].steps.splice(1, 0, { type: 'start' }), /must be the first step/],
  ];
  for (const [param, edit, message] of cases) {
    const res = await vroom(key, matrixPlan(edit));
    assert.equal(res.status, 400, param);
    assert.equal(res.body.code, 2);
    assert.equal(res.body.param, param);
    assert.match(res.body.error, message);
  }
  assert.equal((await server.ledgerOf(key)).balance, 20);
});

test("the OpenAPI plan-mode example: example 2's jobs in the other order, late at job 1414 and back after the shift", async () => {
  const key = await server.createKey('test');
  const res = await vroom(key, VROOM_REQUEST_EXAMPLES.planMode.value);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.routes[0].steps.map((s: any) => [s.type, s.id, s.arrival, s.violations]),
    [
      ['start', undefined, 0, []],
      ['job', 1515, 197, []],
      // 197 + 2256 = 2453, 453 s after its service_before
      ['job', 1414, 2453, [{ cause: 'delay', duration: 453 }]],
      // 2453 + 3152 = 5605, 605 s after the time_window's end
      ['end', undefined, 5605, [{ cause: 'delay', duration: 605 }]],
    ],
  );
  assert.deepEqual(res.body.summary.violations, [{ cause: 'delay', duration: 1058 }]);
});
