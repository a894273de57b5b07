/**
 * POST /api/v1/vroom (src/api/vroom/): VROOM's documented examples (test/fixtures/vroom/), VROOM's times taken as
 * given, a client-style request with coordinates, the named 400 of every VROOM field this service does not take,
 * billing per task (a shipment is two), the sandbox, Idempotency-Key, and every error in VROOM's `{code, error}`
 * body. Every answer is also checked against the OpenAPI document by the test server.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { encodePolyline } from '../../src/calls/geometry.js';
import { startFakeOsrm, type FakeOsrm } from '../fakes/osrm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(new URL(`../fixtures/vroom/${name}.json`, import.meta.url), 'utf8'));

let server: TestServer;
let osrm: FakeOsrm;
before(async () => {
  osrm = await startFakeOsrm();
  // live keys route through the fake OSRM (no fallback: a failure is the engine's); test keys use the built-in model
  server = await startTestServer({
    env: { ROUTING: 'osrm', OSRM_URL: osrm.url, PLANS_SOLVER_TIME_LIMIT_MS: '300' },
  });
});
after(async () => {
  await server.close();
  await osrm.close();
});

const vroom = (key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  server.request('POST', '/api/v1/vroom', { ...(key ? { key } : {}), body, headers });

test("VROOM's example 2 (custom matrix) answers code 0 with the route VROOM documents, charged one stop per job", async () => {
  const key = await server.createKey('live', 10);
  const res = await vroom(key, fixture('example_2'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 0);
  // VROOM's docs/example_2_sol.json: start → 1414 → 1515 → end, cost and duration 5461
  const [route] = res.body.routes;
  assert.equal(res.body.routes.length, 1);
  assert.equal(route.vehicle, 0);
  assert.deepEqual(
    route.steps.map((s: any) => [s.type, s.id, s.location_index, s.arrival, s.duration, s.waiting_time]),
    [
      ['start', undefined, 0, 0, 0, 0],
      ['job', 1414, 1, 2104, 2104, 0],
      ['job', 1515, 2, 4359, 4359, 0],
      ['end', undefined, 3, 5461, 5461, 0],
    ],
  );
  assert.deepEqual(res.body.summary, {
    cost: 5461,
    routes: 1,
    unassigned: 0,
    setup: 0,
    service: 0,
    duration: 5461,
    waiting_time: 0,
    priority: 0,
    violations: [],
  });
  for (const step of route.steps) assert.deepEqual(step.violations, []);
  // no distances in the matrix: none answered (VROOM gives them only with -g or distance matrices)
  assert.ok(route.steps.every((s: any) => s.distance === undefined) && route.distance === undefined);
  assert.deepEqual(res.body.unassigned, []);
  assert.equal(res.body.stopsCharged, 2);
  assert.equal(res.body.stopsBalance, 8);
  assert.equal(osrm.requests.length, 0, 'a call with its own matrices asks no routing engine');
});

test("VROOM's example 3 (vehicle steps) without options.c answers 400 naming the field and plan mode, as VROOM refuses it; nothing is charged", async () => {
  const key = await server.createKey('live', 20);
  const three = await vroom(key, fixture('example_3'));
  assert.equal(three.status, 400);
  assert.equal(three.body.code, 2);
  assert.equal(three.body.errorCode, 'invalid_request');
  assert.ok(three.body.requestId);
  assert.equal(three.body.param, 'vehicles[0].steps');
  assert.match(three.body.error, /"options": \{"c": true\}/);
  assert.equal((await server.ledgerOf(key)).balance, 20);
});

test("vehicles' own fixed costs: the plan uses the vehicle cheaper in all, and each route's cost adds its vehicle's fixed", async () => {
  const key = await server.createKey('live', 20);
  const call = (fixed: [number, number]) =>
    matrixCall((b) => {
      const van = b.vehicles[0];
      b.vehicles = [
        { ...van, id: 7, costs: { fixed: fixed[0] } },
        { ...van, id: 8, costs: { fixed: fixed[1] } },
      ];
    });
  for (const [fixed, used] of [
    [[900, 100], 8],
    [[100, 900], 7],
  ] as const) {
    const res = await vroom(key, call([...fixed]));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.routes.map((r: any) => r.vehicle),
      [used],
    );
    // example 2's one route costs 5461 (its travel time): plus the fixed cost of the vehicle that drives it
    assert.equal(res.body.routes[0].cost, 5461 + 100);
    assert.equal(res.body.summary.cost, 5461 + 100);
  }
});

/** A small valid call with the matrix of example 2, changed by `edit`. */
function matrixCall(edit: (body: any) => void = () => {}): any {
  const body = fixture('example_2');
  edit(body);
  return body;
}

test('every VROOM field this service does not take answers 400 naming it, never ignored', async () => {
  const key = await server.createKey('test');
  const cases: Array<[string, (b: any) => void, RegExp?]> = [
    [
      'jobs[0].setup',
      (b) => ((b.jobs[0].setup = 60), (b.jobs[1].location_index = 1)),
      /a setup time is supported only at a place of its own/,
    ],
    ['jobs[1].service_per_type', (b) => (b.jobs[1].service_per_type = { van: 60 }), /per-vehicle-type/],
    ['jobs[0].setup_per_type', (b) => (b.jobs[0].setup_per_type = { van: 60 })],
    ['jobs[0].amount', (b) => (b.jobs[0].amount = [1]), /send delivery/],
    ['vehicles[0].costs.per_task_hour', (b) => (b.vehicles[0].costs = { per_task_hour: 10 }), /task time/],
    [
      'vehicles[1].costs',
      (b) => b.vehicles.push({ id: 1, start_index: 0, costs: { per_hour: 7200 } }),
      /per_hour and per_km differ from vehicles\[0\]'s/,
    ],
    ['vehicles[0].costs.per_km', (b) => (b.vehicles[0].costs = { per_km: 5 }), /needs distances/],
    [
      'matrices.car.costs',
      (b) => ((b.matrices.car.costs = b.matrices.car.durations), (b.vehicles[0].costs = { per_hour: 60 })),
      /per_hour and per_km cannot apply/,
    ],
    [
      'vehicles[0].breaks[0].time_windows',
      (b) =>
        (b.vehicles[0].breaks = [
          {
            id: 1,
            service: 300,
            time_windows: [
              [0, 10],
              [20, 30],
            ],
          },
        ]),
      /several windows per break are not supported/,
    ],
    [
      'vehicles[0].breaks[0].max_load',
      (b) => (b.vehicles[0].breaks = [{ id: 1, time_windows: [[0, 10]], max_load: [1] }]),
      /max_load is not supported/,
    ],
    ['vehicles[0].steps', (b) => (b.vehicles[0].steps = [{ type: 'start' }])],
    ['matrix', (b) => (b.matrix = b.matrices.car.durations), /deprecated/],
    ['options.t', (b) => (b.options = { t: 4 }), /only options\.g/],
    ['jobs[0].location_index', (b) => delete b.jobs[0].location_index, /required with matrices/],
    ['vehicles[0].start', (b) => (b.vehicles[0] = { id: 0, time_window: [0, 9000] }), /neither a start nor an end/],
    ['jobs[1].location_index', (b) => (b.jobs[1].location_index = 4), /durations has 4 rows/],
    ['matrices.car.durations[2]', (b) => b.matrices.car.durations[2].pop(), /square/],
    ['matrices.bike', (b) => (b.matrices = { bike: b.matrices.car }), /profile/],
    ['matrices', (b) => (b.matrices.bike = b.matrices.car), /exactly one profile/],
    [
      'vehicles[1].profile',
      (b) => b.vehicles.push({ id: 1, profile: 'bike', start_index: 0 }),
      /one call plans one profile/,
    ],
    [
      'vehicles[1].speed_factor',
      (b) => b.vehicles.push({ id: 1, start_index: 0, speed_factor: 1.5 }),
      /same speed_factor/,
    ],
    ['vehicles[1].id', (b) => b.vehicles.push({ id: 0, start_index: 0 }), /unique/],
    ['jobs[1].id', (b) => (b.jobs[1].id = 1414), /unique/],
    ['jobs[1].delivery', (b) => ((b.jobs[0].delivery = [1]), (b.jobs[1].delivery = [1, 2])), /same dimensions/],
    ['vehicles[0].max_distance', (b) => (b.vehicles[0].max_distance = 1000), /distances/],
    ['options.g', (b) => (b.options = { g: true }), /no coordinates/],
    ['jobs[0].time_windows[0]', (b) => (b.jobs[0].time_windows = [[100, 50]]), /ends before it starts/],
    ['jobs[0].location[1]', (b) => (b.jobs[0].location = [48.7, 95]), /latitude .*swapped/],
    ['jobs', (b) => ((b.jobs = []), (b.shipments = [])), /at least one job or shipment/],
  ];
  for (const [param, edit, message] of cases) {
    const res = await vroom(key, matrixCall(edit));
    assert.equal(res.status, 400, `${param}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 2, param);
    assert.equal(res.body.errorCode, 'invalid_request', param);
    assert.equal(res.body.param, param, JSON.stringify(res.body));
    if (message) assert.match(res.body.error, message, param);
  }
  // without matrices: coordinates are required, an index is refused
  const coordinates = {
    vehicles: [{ id: 1, start: [2.35, 48.85] }],
    jobs: [{ id: 1, location: [2.3, 48.86] }],
  };
  const noLocation = await vroom(key, { ...coordinates, jobs: [{ id: 1 }] });
  assert.equal(noLocation.body.param, 'jobs[0].location');
  const strayIndex = await vroom(key, { ...coordinates, jobs: [{ id: 1, location: [2.3, 48.86], location_index: 0 }] });
  assert.equal(strayIndex.body.param, 'jobs[0].location_index');
  assert.match(strayIndex.body.error, /the call has none/);
});

test('billing: one stop per job, two per shipment; 402 and 401 in VROOM’s body; an Idempotency-Key replays', async () => {
  const body = {
    vehicles: [{ id: 7, start: [2.3522, 48.8566], end: [2.3522, 48.8566] }],
    jobs: [
      { id: 1, location: [2.3376, 48.8606] },
      { id: 2, location: [2.3499, 48.853] },
    ],
    shipments: [{ pickup: { id: 10, location: [2.3431, 48.8867] }, delivery: { id: 11, location: [2.3003, 48.8412] } }],
  };
  const short = await server.createKey('live', 3);
  const refused = await vroom(short, body);
  assert.equal(refused.status, 402);
  assert.deepEqual(
    {
      code: refused.body.code,
      errorCode: refused.body.errorCode,
      required: refused.body.required,
      balance: refused.body.balance,
    },
    { code: 2, errorCode: 'insufficient_stops', required: 4, balance: 3 },
  );
  const key = await server.createKey('live', 10);
  const headers = { 'Idempotency-Key': 'vroom-billing-1' };
  const first = await vroom(key, body, headers);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.stopsCharged, 4);
  assert.equal(first.body.stopsBalance, 6);
  const again = await vroom(key, body, headers);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  assert.equal((await server.ledgerOf(key)).balance, 6);
  const elsewhere = await server.request('POST', '/api/v1/plans', {
    key,
    headers,
    body: {
      vehicles: [{ id: 'v', start: { latitude: 48.85, longitude: 2.35 } }],
      stops: [
        { id: 'a', latitude: 48.86, longitude: 2.34 },
        { id: 'b', latitude: 48.85, longitude: 2.36 },
      ],
    },
  });
  assert.equal(elsewhere.status, 409, 'the same Idempotency-Key on another endpoint');
  const anonymous = await vroom(undefined, body);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.code, 2);
  assert.equal(anonymous.body.errorCode, 'unauthorized');
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
});

test('sandbox: a test key is counted, not charged, and capped at 10 tasks (a shipment is two)', async () => {
  const key = await server.createKey('test');
  const ok = await vroom(key, fixture('example_2'));
  assert.equal(ok.status, 200);
  assert.equal(ok.body.stopsCharged, 0);
  assert.equal(ok.body.sandbox, true);
  assert.equal(typeof ok.body.sandboxStopsRemainingToday, 'number');
  // empty breaks and steps are no breaks and no custom route; coordinates beside the indices draw the routes
  const drawn = await vroom(
    key,
    matrixCall((b) => {
      b.vehicles[0] = { ...b.vehicles[0], breaks: [], steps: [], start: [2.35, 48.85], end: [2.36, 48.86] };
      b.jobs[0].location = [2.3, 48.86];
      b.jobs[1].location = [2.31, 48.87];
      b.options = { g: true };
    }),
  );
  assert.equal(drawn.status, 200, JSON.stringify(drawn.body));
  // straight segments through the given coordinates, in driving order
  const line = [
    [2.35, 48.85],
    [2.3, 48.86],
    [2.31, 48.87],
    [2.36, 48.86],
  ].map(([longitude, latitude]) => ({ latitude: latitude!, longitude: longitude! }));
  assert.equal(drawn.body.routes[0].geometry, encodePolyline(line));
  assert.deepEqual(drawn.body.routes[0].steps[1].location, [2.3, 48.86]);
  const jobs = Array.from({ length: 9 }, (_, i) => ({ id: i, location: [2.3 + i / 100, 48.85] }));
  const shipments = [{ pickup: { id: 1, location: [2.31, 48.86] }, delivery: { id: 1, location: [2.32, 48.87] } }];
  const capped = await vroom(key, { vehicles: [{ id: 1, start: [2.35, 48.85] }], jobs, shipments });
  assert.equal(capped.status, 400);
  assert.equal(capped.body.code, 2);
  assert.equal(capped.body.errorCode, 'sandbox_limit');
});

test('VROOM times are kept as given: UNIX-timestamp windows, waiting, the late start, service and speed_factor', async () => {
  const key = await server.createKey('test');
  const T = 1_600_000_000;
  const body = {
    vehicles: [{ id: 1, start_index: 0, end_index: 0, time_window: [T, T + 20_000] }],
    jobs: [
      { id: 1, location_index: 1, service: 120, time_windows: [[T + 3000, T + 4000]] },
      // two windows given out of order: the solver takes them sorted; the first opens after job 1 is done
      {
        id: 2,
        location_index: 2,
        service: 60,
        time_windows: [
          [T + 9000, T + 9500],
          [T + 5000, T + 5100],
        ],
      },
    ],
    matrices: {
      car: {
        durations: [
          [0, 1000, 1800],
          [1000, 0, 700],
          [1800, 700, 0],
        ],
        distances: [
          [0, 9000, 15000],
          [9000, 0, 6000],
          [15000, 6000, 0],
        ],
      },
    },
  };
  const res = await vroom(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const steps = res.body.routes[0].steps;
  // leaves as late as the first window allows (T + 2000), job 2 waits from T + 3820 to T + 5000
  assert.deepEqual(
    steps.map((s: any) => [s.type, s.id, s.arrival, s.waiting_time, s.service, s.duration, s.distance]),
    [
      ['start', undefined, T + 2000, 0, 0, 0, 0],
      ['job', 1, T + 3000, 0, 120, 1000, 9000],
      ['job', 2, T + 3820, 1180, 60, 1700, 15000],
      ['end', undefined, T + 5000 + 60 + 1800, 0, 0, 3500, 30000],
    ],
  );
  assert.deepEqual(
    [res.body.summary.cost, res.body.summary.waiting_time, res.body.summary.service, res.body.summary.distance],
    [3500, 1180, 180, 30000],
  );
  // speed_factor 2: every travel time halved
  const fast = await vroom(key, { ...body, vehicles: [{ ...body.vehicles[0], speed_factor: 2 }] });
  assert.equal(fast.status, 200);
  assert.equal(fast.body.summary.duration, 1750);
  assert.equal(fast.body.routes[0].steps[1].arrival, T + 3000);
});

test('a vehicle without a start: its route begins at its first task, with no start step and nothing before it', async () => {
  // a live key: a test key's matrix has no more rows than its call has places (the start's row is one too many)
  const key = await server.createKey('live', 10);
  const res = await vroom(
    key,
    matrixCall((b) => delete b.vehicles[0].start_index),
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // 1414 → 1515 → end is 2255 + 1102 s; the other way 2256 + 3152
  assert.deepEqual(
    res.body.routes[0].steps.map((s: any) => [s.id ?? s.type, s.arrival, s.duration, s.waiting_time]),
    [
      [1414, 0, 0, 0],
      [1515, 2255, 2255, 0],
      ['end', 3357, 3357, 0],
    ],
  );
  assert.equal(res.body.summary.cost, 3357);
  // with a time window it begins when the first task's window opens, the vehicle's own window permitting
  const T = 1_700_000_000;
  const later = await vroom(
    key,
    matrixCall((b) => {
      delete b.vehicles[0].start_index;
      b.vehicles[0].time_window = [T, T + 20_000];
      b.jobs[0].time_windows = [[T + 600, T + 900]];
    }),
  );
  assert.equal(later.status, 200, JSON.stringify(later.body));
  const first = later.body.routes[0].steps[0];
  assert.deepEqual([first.type, first.id, first.arrival, first.waiting_time], ['job', 1414, T + 600, 0]);
});

test("VROOM's costs: a cost matrix chooses the route, fixed and per_hour price it", async () => {
  const key = await server.createKey('test');
  // the cost matrix makes the longer way round (0 → 1515 → 1414 → 3: 5605 s) the cheaper one
  const costly = await vroom(
    key,
    matrixCall((b) => {
      b.matrices.car.costs = [
        [0, 900, 10, 900],
        [900, 0, 900, 10],
        [10, 10, 0, 900],
        [900, 10, 900, 0],
      ];
      b.vehicles[0].costs = { fixed: 50 };
    }),
  );
  assert.equal(costly.status, 200, JSON.stringify(costly.body));
  const route = costly.body.routes[0];
  assert.deepEqual(
    route.steps.map((s: any) => s.id ?? s.type),
    ['start', 1515, 1414, 'end'],
  );
  assert.equal(route.cost, 50 + 10 + 10 + 10);
  assert.equal(route.duration, 197 + 2256 + 3152);
  assert.equal(costly.body.summary.cost, 80);
  // a setup at a place of its own is spent before the service, and told apart from it
  const setup = await vroom(
    key,
    matrixCall((b) => ((b.jobs[0].setup = 100), (b.jobs[0].service = 20))),
  );
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  assert.deepEqual(
    setup.body.routes[0].steps.map((s: any) => [s.id ?? s.type, s.arrival, s.setup, s.service]),
    [
      ['start', 0, 0, 0],
      [1414, 2104, 100, 20],
      [1515, 2104 + 120 + 2255, 0, 0],
      ['end', 2104 + 120 + 2255 + 1102, 0, 0],
    ],
  );
  assert.deepEqual([setup.body.summary.setup, setup.body.summary.service], [100, 20]);
  // per_hour 7200: twice the travel time, plus the fixed cost
  const priced = await vroom(
    key,
    matrixCall((b) => (b.vehicles[0].costs = { fixed: 1000, per_hour: 7200 })),
  );
  assert.equal(priced.status, 200, JSON.stringify(priced.body));
  assert.equal(priced.body.summary.cost, 1000 + 2 * 5461);
  assert.equal(priced.body.summary.duration, 5461);
});

test('skills, priority, capacity and max_tasks become the fleet rules; what no vehicle may serve is unassigned, still charged', async () => {
  const key = await server.createKey('live', 10);
  const durations = [
    [0, 300, 300, 300, 300],
    [300, 0, 200, 200, 200],
    [300, 200, 0, 200, 200],
    [300, 200, 200, 0, 200],
    [300, 200, 200, 200, 0],
  ];
  const res = await vroom(key, {
    vehicles: [
      { id: 1, start_index: 0, capacity: [2], skills: [5], max_tasks: 2, description: 'van with a crane' },
      { id: 2, start_index: 0, capacity: [2], max_tasks: 2 },
    ],
    jobs: [
      { id: 1, location_index: 1, delivery: [1], skills: [5], description: 'needs the crane' },
      { id: 2, location_index: 2, delivery: [1] },
      { id: 3, location_index: 3, delivery: [1], priority: 100 },
      { id: 4, location_index: 4, delivery: [1], skills: [9] },
    ],
    matrices: { car: { durations } },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.stopsCharged, 4);
  assert.deepEqual(res.body.unassigned, [{ id: 4, type: 'job', location_index: 4, reason: 'allowedVehicles' }]);
  const byVehicle = new Map<number, any>(res.body.routes.map((r: any) => [r.vehicle, r]));
  const tasksOf = (v: number) =>
    byVehicle
      .get(v)
      ?.steps.filter((s: any) => s.type === 'job')
      .map((s: any) => s.id) ?? [];
  assert.ok(tasksOf(1).includes(1), 'the job that needs skill 5 goes to the vehicle with it');
  assert.ok(tasksOf(1).length <= 2 && tasksOf(2).length <= 2, 'max_tasks');
  assert.equal(byVehicle.get(1).description, 'van with a crane');
  for (const route of res.body.routes) {
    const jobs = route.steps.filter((s: any) => s.type === 'job').length;
    assert.deepEqual(route.steps[0].load, [jobs], 'the start carries every delivery of the route');
    assert.deepEqual(route.steps.at(-1).load, [0]);
    assert.deepEqual(route.delivery, [jobs]);
    assert.deepEqual(route.pickup, [0]);
    assert.equal(route.steps.at(-1).type, 'job', 'no end: the route ends at its last task');
  }
  assert.equal(res.body.summary.unassigned, 1);
  assert.equal(res.body.summary.priority, 100);
});

test('a VROOM client with coordinates: our routing engine gives times and distances, options.g a geometry', async () => {
  const key = await server.createKey('live', 10);
  // as an openrouteservice / vroom-express client sends it: [lon, lat], UNIX times, amounts and skills
  const body = {
    vehicles: [
      {
        id: 1,
        profile: 'driving-car',
        start: [2.35044, 48.71764],
        end: [2.35044, 48.71764],
        capacity: [4],
        skills: [1, 14],
        time_window: [1600416000, 1600444800],
      },
    ],
    jobs: [
      {
        id: 1,
        service: 300,
        delivery: [1],
        location: [1.98935, 48.701],
        skills: [1],
        time_windows: [[1600419600, 1600423200]],
      },
      { id: 5, service: 300, delivery: [1], location: [2.28325, 48.5958], skills: [14] },
      { id: 6, service: 300, delivery: [1], location: [2.89357, 48.90736], skills: [14] },
    ],
    options: { g: true },
  };
  const res = await vroom(key, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 0);
  assert.ok(osrm.requests.length > 0, 'the routing engine gave the travel times');
  const [route] = res.body.routes;
  assert.equal(typeof route.geometry, 'string');
  assert.ok(route.geometry.length > 10);
  const steps = route.steps;
  assert.deepEqual(
    steps.map((s: any) => s.type),
    ['start', 'job', 'job', 'job', 'end'],
  );
  assert.ok(steps[0].arrival >= 1600416000 && steps.at(-1).arrival <= 1600444800, 'within the time window');
  const job1 = steps.find((s: any) => s.id === 1);
  const start = job1.arrival + job1.waiting_time;
  assert.ok(start >= 1600419600 && start <= 1600423200, 'service starts inside the window');
  for (let k = 1; k < steps.length; k++) {
    assert.ok(steps[k].distance > steps[k - 1].distance && steps[k].duration > steps[k - 1].duration);
    assert.deepEqual(
      steps[k].location,
      k === steps.length - 1 ? body.vehicles[0].end : body.jobs.find((j) => j.id === steps[k].id)!.location,
    );
  }
  assert.equal(route.distance, steps.at(-1).distance);
  assert.equal(res.body.summary.distance, route.distance);
  assert.equal(route.cost, steps.at(-1).duration);
});

test('a routing engine that fails is VROOM’s routing error (code 3), 502, refunded', async () => {
  const key = await server.createKey('live', 10);
  osrm.mode = { kind: 'status', status: 500 };
  try {
    const res = await vroom(key, {
      vehicles: [{ id: 1, start: [2.35, 48.85] }],
      jobs: [{ id: 1, location: [2.3, 48.86] }],
    });
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 3);
    assert.equal(res.body.errorCode, 'optimization_failed');
  } finally {
    osrm.mode = { kind: 'ok' };
  }
  assert.equal((await server.ledgerOf(key)).balance, 10);
});
