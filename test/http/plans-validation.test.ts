/** POST /api/v1/plans: each validation rule answers 400 invalid_request, names the field in `param` and says the fix. */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';
import { planProblems } from '../helpers/plan-invariants.js';
import { PLAN_REQUEST_EXAMPLES, PLAN_RESPONSE_EXAMPLES } from '../../src/api/openapi/plan-examples.js';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer();
  key = await server.createKey('live', 10);
});
after(async () => {
  await server.close();
});

const van = (id: string, extra: Record<string, unknown> = {}) => ({ id, start: PARIS_START, ...extra });
type Body = { vehicles: Array<Record<string, any>>; stops: Array<Record<string, unknown>> } & Record<string, unknown>;
const valid = (): Body => ({
  vehicles: [van('a', { capacity: [10, 2] }), van('b')],
  stops: coordinateStops(3).map((s) => ({ ...s })),
});
const change = (edit: (b: Body) => void): Body => {
  const b = valid();
  edit(b);
  return b;
};

const CASES: Array<{ name: string; body: unknown; param: string; message: RegExp }> = [
  {
    name: 'no vehicles field',
    body: { stops: coordinateStops(2) },
    param: 'vehicles',
    message: /vehicles is required/,
  },
  {
    name: 'no vehicle',
    body: change((b) => {
      b.vehicles = [];
    }),
    param: 'vehicles',
    message: /a plan needs 1 to 50 vehicles \(got 0\)/,
  },
  {
    name: '51 vehicles',
    body: change((b) => {
      b.vehicles = Array.from({ length: 51 }, (_, k) => van(`v${k}`));
    }),
    param: 'vehicles',
    message: /at most 50 vehicles \(got 51\)/,
  },
  {
    name: 'one stop',
    body: change((b) => {
      b.stops = coordinateStops(1);
    }),
    param: 'stops',
    message: /a plan needs 2 to 1000 stops \(got 1\)/,
  },
  {
    name: '1001 stops',
    body: change((b) => {
      b.stops = coordinateStops(1001);
    }),
    param: 'stops',
    message: /at most 1000 stops \(got 1001\); split the day/,
  },
  {
    name: 'a vehicle without start',
    body: change((b) => {
      b.vehicles = [{ id: 'a' } as never];
    }),
    param: 'vehicles[0].start',
    message: /start is required/,
  },
  {
    name: 'an empty vehicle id',
    body: change((b) => {
      b.vehicles[0]!.id = '';
    }),
    param: 'vehicles[0].id',
    message: /vehicles\[0\]\.id/,
  },
  {
    name: 'lat/lng for a vehicle start',
    body: change((b) => {
      b.vehicles[1]!.start = { lat: 48.85, lng: 2.35 } as never;
    }),
    param: 'vehicles[1].start.lat',
    message: /use latitude and longitude/,
  },
  {
    name: 'an unknown vehicle field',
    body: change((b) => {
      (b.vehicles[0] as Record<string, unknown>).speed = 3;
    }),
    param: 'vehicles[0].speed',
    message: /unknown property "speed"/,
  },
  {
    name: 'duplicate vehicle ids',
    body: change((b) => {
      b.vehicles[1]!.id = 'a';
    }),
    param: 'vehicles[1].id',
    message: /repeats vehicles\[0\]\.id: vehicle ids must be unique/,
  },
  {
    name: 'duplicate stop ids',
    body: change((b) => {
      b.stops[2]!.id = 's1';
    }),
    param: 'stops[2].id',
    message: /repeats stops\[0\]\.id: stop ids must be unique/,
  },
  {
    name: 'a shift time in another form',
    body: change((b) => {
      b.vehicles[0]!.shift = { start: '8h' } as never;
    }),
    param: 'vehicles[0].shift.start',
    message: /write "08:00"/,
  },
  {
    name: 'a shift that ends before it starts',
    body: change((b) => {
      b.vehicles[0]!.shift = { start: '14:00', end: '09:00' } as never;
    }),
    param: 'vehicles[0].shift.end',
    message: /must be after shift\.start "14:00"/,
  },
  {
    name: 'a negative capacity',
    body: change((b) => {
      b.vehicles[0]!.capacity = [-1, 2];
    }),
    param: 'vehicles[0].capacity[0]',
    message: /whole number from 0/,
  },
  {
    name: 'nine capacity dimensions',
    body: change((b) => {
      b.vehicles[0]!.capacity = Array(9).fill(1);
    }),
    param: 'vehicles[0].capacity',
    message: /at most 8/,
  },
  {
    name: 'capacities of different lengths',
    body: change((b) => {
      b.vehicles[1]!.capacity = [5] as never;
    }),
    param: 'vehicles[1].capacity',
    message: /has 1 dimensions but vehicles\[0\]\.capacity has 2/,
  },
  {
    name: 'maxStops 0',
    body: change((b) => {
      (b.vehicles[0] as Record<string, unknown>).maxStops = 0;
    }),
    param: 'vehicles[0].maxStops',
    message: /whole number from 1 to 1000/,
  },
  {
    name: 'a demand of the wrong length',
    body: change((b) => {
      b.stops[1]!.demand = [1];
    }),
    param: 'stops[1].demand',
    message: /has 1 dimensions but the vehicles' capacity has 2/,
  },
  {
    name: 'a demand without any capacity',
    body: change((b) => {
      delete (b.vehicles[0] as Record<string, unknown>).capacity;
      b.stops[0]!.demand = [1];
    }),
    param: 'stops[0].demand',
    message: /needs vehicles with a capacity of the same length/,
  },
  {
    name: 'allowedVehicles naming no vehicle',
    body: change((b) => {
      b.stops[2]!.allowedVehicles = ['a', 'zz'];
    }),
    param: 'stops[2].allowedVehicles[1]',
    message: /"zz" is not the id of a vehicle of this call/,
  },
  {
    name: 'allowedVehicles twice the same',
    body: change((b) => {
      b.stops[2]!.allowedVehicles = ['a', 'a'];
    }),
    param: 'stops[2].allowedVehicles',
    message: /must list 1 to 50 vehicle ids, each once/,
  },
  {
    name: 'an empty allowedVehicles',
    body: change((b) => {
      b.stops[2]!.allowedVehicles = [];
    }),
    param: 'stops[2].allowedVehicles',
    message: /must list 1 to 50 vehicle ids/,
  },
  {
    name: 'notBefore in another form',
    body: change((b) => {
      b.stops[0]!.notBefore = '9:30';
    }),
    param: 'stops[0].notBefore',
    message: /write "09:30"/,
  },
  {
    name: 'notBefore after the deadline',
    body: change((b) => {
      Object.assign(b.stops[0]!, { notBefore: '12:00', deadline: '11:00' });
    }),
    param: 'stops[0].notBefore',
    message: /after its deadline "11:00".*move notBefore/,
  },
  {
    name: 'six time windows',
    body: change((b) => {
      b.stops[0]!.timeWindows = Array.from({ length: 6 }, (_, k) => ({ start: `1${k}:00`, end: `1${k}:30` }));
    }),
    param: 'stops[0].timeWindows',
    message: /must list 1 to 5 windows/,
  },
  {
    name: 'no time window',
    body: change((b) => {
      b.stops[0]!.timeWindows = [];
    }),
    param: 'stops[0].timeWindows',
    message: /must list 1 to 5 windows/,
  },
  {
    name: 'a time window without its end',
    body: change((b) => {
      b.stops[1]!.timeWindows = [{ start: '09:00' }];
    }),
    param: 'stops[1].timeWindows[0].end',
    message: /end is required/,
  },
  {
    name: 'a time window in another form',
    body: change((b) => {
      b.stops[1]!.timeWindows = [{ start: '9:00', end: '12:00' }];
    }),
    param: 'stops[1].timeWindows[0].start',
    message: /write "09:00"/,
  },
  {
    name: 'a time window that ends before it starts',
    body: change((b) => {
      b.stops[1]!.timeWindows = [{ start: '12:00', end: '09:00' }];
    }),
    param: 'stops[1].timeWindows[0].end',
    message: /must be after its start "12:00"/,
  },
  {
    name: 'time windows out of order',
    body: change((b) => {
      b.stops[2]!.timeWindows = [
        { start: '14:00', end: '16:00' },
        { start: '09:00', end: '12:00' },
      ];
    }),
    param: 'stops[2].timeWindows[1].start',
    message: /list the windows in time order, and merge windows that overlap or touch/,
  },
  {
    name: 'time windows that touch',
    body: change((b) => {
      b.stops[2]!.timeWindows = [
        { start: '09:00', end: '12:00' },
        { start: '12:00', end: '14:00' },
      ];
    }),
    param: 'stops[2].timeWindows[1].start',
    message: /merge windows that overlap or touch into one/,
  },
  {
    name: 'notBefore after the last time window',
    body: change((b) => {
      Object.assign(b.stops[0]!, { notBefore: '15:00', timeWindows: [{ start: '09:00', end: '12:00' }] });
    }),
    param: 'stops[0].notBefore',
    message: /after the end of its last time window "12:00".*move notBefore into a window/,
  },
  {
    name: 'a deadline before the first time window',
    body: change((b) => {
      Object.assign(b.stops[0]!, { deadline: '08:00', timeWindows: [{ start: '09:00', end: '12:00' }] });
    }),
    param: 'stops[0].deadline',
    message: /before its first time window starts "09:00".*move the deadline into a window/,
  },
  {
    name: 'maxDurationMin of 0',
    body: change((b) => {
      b.vehicles[0]!.maxDurationMin = 0;
    }),
    param: 'vehicles[0].maxDurationMin',
    message: /must be a whole number of minutes from 1 to 1440/,
  },
  {
    name: 'maxDrivingMin over a day',
    body: change((b) => {
      b.vehicles[1]!.maxDrivingMin = 1500;
    }),
    param: 'vehicles[1].maxDrivingMin',
    message: /must be a whole number of minutes from 1 to 1440/,
  },
  {
    name: 'maxDistanceKm of 0',
    body: change((b) => {
      b.vehicles[0]!.maxDistanceKm = 0;
    }),
    param: 'vehicles[0].maxDistanceKm',
    message: /must be a number of kilometres above 0 and at most 10000/,
  },
  {
    name: 'maxDistanceKm as a string',
    body: change((b) => {
      b.vehicles[0]!.maxDistanceKm = '50 km';
    }),
    param: 'vehicles[0].maxDistanceKm',
    message: /maxDistanceKm must be a number/,
  },
  {
    name: 'a priority above 100',
    body: change((b) => {
      b.stops[0]!.priority = 101;
    }),
    param: 'stops[0].priority',
    message: /must be a whole number from 0 to 100/,
  },
  {
    name: 'a fractional priority',
    body: change((b) => {
      b.stops[1]!.priority = 2.5;
    }),
    param: 'stops[1].priority',
    message: /stops\[1\]\.priority must be a whole number from 0 to 100, not 2\.5/,
  },
  {
    name: 'a stop with both shapes',
    body: change((b) => {
      Object.assign(b.stops[0]!, { street: '1 rue', postalCode: '75004', city: 'Paris' });
    }),
    param: 'stops[0]',
    message: /not both/,
  },
  {
    name: 'an optimize body',
    body: { start: PARIS_START, stops: coordinateStops(2) },
    param: 'vehicles',
    message: /vehicles is required/,
  },
  {
    name: 'a departure far away',
    body: change((b) => {
      b.departureTime = '2099-01-01T08:00:00Z';
    }),
    param: 'departureTime',
    message: /departureTime must be within 366 days of now/,
  },
];

for (const c of CASES) {
  test(`400 invalid_request: ${c.name}`, async () => {
    const res = await server.request('POST', '/api/v1/plans', { key, body: c.body });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.param ?? '', c.param, res.body.message);
    assert.match(res.body.message, c.message);
  });
}

test('nothing was charged for any of them', async () => {
  assert.deepEqual(await server.ledgerOf(key), { balance: 10, sum: 10, reasons: ['admin_credit'] });
});

test('the plan checker of these tests catches broken plans (so the contract tests can fail)', async () => {
  const request = PLAN_REQUEST_EXAMPLES.fleet.value;
  const answer = PLAN_RESPONSE_EXAMPLES.testKey.value;
  assert.deepEqual(await planProblems(request, answer), []);
  const broken = (edit: (a: any) => void) => {
    const a = structuredClone(answer) as any;
    edit(a);
    return planProblems(request, a);
  };
  assert.notDeepEqual(
    await broken((a) => {
      a.unassigned = [];
    }),
    [],
    'a stop missing',
  );
  assert.notDeepEqual(
    await broken((a) => {
      a.routes[1].order.push('louvre');
    }),
    [],
    'a stop twice',
  );
  assert.notDeepEqual(
    await broken((a) => {
      a.routes[0].load = [301, 8];
    }),
    [],
    'a load that is not the demands',
  );
  assert.notDeepEqual(
    await broken((a) => {
      a.routes.reverse();
    }),
    [],
    'routes out of vehicle order',
  );
  assert.notDeepEqual(
    await broken((a) => {
      delete a.routes[1].schedule[1].serviceStart;
    }),
    [],
    'service before notBefore',
  );
  assert.notDeepEqual(
    await broken((a) => {
      a.routes[0].returnAt = '2026-06-01T10:00:01Z';
      a.routes[0].estimatedTimeMin = 240;
    }),
    [],
    'past the shift end',
  );
  assert.notDeepEqual(
    await broken((a) => {
      a.routes[0].departAt = '2026-06-01T05:30:00Z';
    }),
    [],
    'leaving before the shift',
  );
  assert.notDeepEqual(
    await broken((a) => {
      a.totals.assigned = 7;
    }),
    [],
    'totals',
  );
});
