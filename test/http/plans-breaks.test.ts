/**
 * POST /api/v1/plans with vehicle breaks: a used vehicle takes its break inside its window, shown as a "break" step
 * that overlaps no service or leg; a stop whose window would need the break moved out of its window is unassigned;
 * an unused vehicle takes none; validation names the field and the fix.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '150' } });
  key = await server.createKey('test');
});
after(async () => {
  await server.close();
});

// 07:30 Paris = 05:30Z (summer time): 12:00 Paris is 10:00Z
const DEPARTURE = '2026-06-01T07:30:00+02:00';
const paris = (hhmm: string) => Date.parse(`2026-06-01T${hhmm}:00+02:00`);
const lunch = (extra: Record<string, unknown> = {}) => ({
  id: 'lunch',
  window: { start: '12:00', end: '12:05' },
  durationSeconds: 3000,
  ...extra,
});
const van = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  start: PARIS_START,
  end: PARIS_START,
  shift: { start: '11:50', end: '18:00' },
  ...extra,
});
const plan = (body: unknown) => server.request('POST', '/api/v1/plans', { key, body });

test('a used vehicle takes its break inside its window, between its stops, shown as a break step', async () => {
  const stops = coordinateStops(4, 3).map((s) => ({ ...s, serviceSeconds: 300 }));
  const res = await plan({ departureTime: DEPARTURE, vehicles: [van('a', { breaks: [lunch()] })], stops });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.unassigned, []);
  const steps = res.body.routes[0].steps;
  const breaks = steps.filter((s: any) => s.type === 'break');
  assert.equal(breaks.length, 1, JSON.stringify(steps));
  const b = breaks[0];
  assert.equal(b.id, 'lunch');
  const start = Date.parse(b.arrival);
  assert.ok(paris('12:00') <= start && start <= paris('12:05'), `starts in its window: ${b.arrival}`);
  assert.equal(Date.parse(b.departure) - start, 3000_000);
  assert.deepEqual([b.distanceM, b.durationS], [0, 0]);
  // nothing else happens during the break: every service and leg lies before or after it
  for (const s of steps) {
    if (s === b || s.type === 'start') continue;
    const serviceStart = Date.parse(s.serviceStart ?? s.arrival);
    const busy = [serviceStart, Date.parse(s.departure)];
    const before = busy[1]! <= start;
    const afterBreak = serviceStart >= Date.parse(b.departure);
    assert.ok(before || afterBreak, `${s.type} ${s.id} overlaps the break`);
  }
  // the step before it has left by its start (the break is taken where the vehicle stands)
  const k = steps.indexOf(b);
  assert.ok(Date.parse(steps[k - 1].departure) <= start);
});

test('a stop whose window would need the break moved out of its window is unassigned; without the break it is served', async () => {
  const stops = [
    ...coordinateStops(2, 5).map((s) => ({ ...s, serviceSeconds: 60 })),
    { ...coordinateStops(3, 5)[2]!, id: 'noon', timeWindows: [{ start: '12:10', end: '12:30' }] },
  ];
  const withBreak = await plan({ departureTime: DEPARTURE, vehicles: [van('a', { breaks: [lunch()] })], stops });
  assert.equal(withBreak.status, 200, JSON.stringify(withBreak.body));
  assert.deepEqual(
    withBreak.body.unassigned.map((u: any) => u.id),
    ['noon'],
  );
  assert.ok(['shift', 'timeWindows'].includes(withBreak.body.unassigned[0].reason));
  const without = await plan({ departureTime: DEPARTURE, vehicles: [van('a')], stops });
  assert.equal(without.status, 200, JSON.stringify(without.body));
  assert.deepEqual(without.body.unassigned, []);
});

test('an unused vehicle takes no break; vehicles without breaks show none', async () => {
  const stops = coordinateStops(3, 8);
  const res = await plan({
    departureTime: DEPARTURE,
    vehicles: [van('a'), van('b', { breaks: [lunch()] })],
    stops: stops.map((s) => ({ ...s, allowedVehicles: ['a'] })),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.routes.map((r: any) => r.vehicleId),
    ['a'],
  );
  assert.ok(res.body.routes[0].steps.every((s: any) => s.type !== 'break'));
});

const INVALID: Array<{ name: string; breaks: unknown; param: string; message: RegExp }> = [
  {
    name: 'a repeated break id',
    breaks: [lunch(), lunch()],
    param: 'vehicles[0].breaks[1].id',
    message: /repeats vehicles\[0\]\.breaks\[0\]\.id: break ids must be unique within a vehicle/,
  },
  {
    name: 'a window that ends before it starts',
    breaks: [lunch({ window: { start: '13:00', end: '12:00' } })],
    param: 'vehicles[0].breaks[0].window.end',
    message: /must not be before its start "13:00"/,
  },
  {
    name: 'a duration over a day',
    breaks: [lunch({ durationSeconds: 90000 })],
    param: 'vehicles[0].breaks[0].durationSeconds',
    message: /from 0 to 86400/,
  },
  {
    name: 'a window time that is not HH:MM',
    breaks: [lunch({ window: { start: 'noon', end: '13:00' } })],
    param: 'vehicles[0].breaks[0].window.start',
    message: /HH:MM/,
  },
  {
    name: 'too many breaks',
    breaks: Array.from({ length: 6 }, (_, k) => lunch({ id: `b${k}` })),
    param: 'vehicles[0].breaks',
    message: /at most 5 breaks/,
  },
];
for (const c of INVALID) {
  test(`400 invalid_request: ${c.name}`, async () => {
    const res = await plan({
      departureTime: DEPARTURE,
      vehicles: [van('a', { breaks: c.breaks })],
      stops: coordinateStops(2),
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.param ?? '', c.param, res.body.message);
    assert.match(res.body.message, c.message);
  });
}
