/**
 * notBefore (plans) end to end: the fleet solver waits and times the stops, buildSchedule says when.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { buildSchedule, resolveDeparture, timeOfDayInstant } from '../../../src/schedule/index.js';
import { loadSolver, type FleetProblem } from '../../../src/solver/index.js';

const solver = loadSolver();
const departure = resolveDeparture('2026-06-01T08:00:00+02:00', new Date());
const readyS = (time: string) =>
  Math.round((timeOfDayInstant(time, departure, 'earlier').toMillis() - departure.toMillis()) / 1000);
// start, a, b: 600 s legs
const legs = [
  [0, 600, 600],
  [600, 0, 600],
  [600, 600, 0],
];

function plan(jobs: FleetProblem['jobs'], ids: string[]) {
  const r = solver.solveFleet(
    { locations: 3, travel: Int32Array.from(legs.flat()), vehicles: [{ start: 0 }], jobs },
    { maxIterations: 50 },
  );
  const route = r.routes[0]!;
  const stops = route.jobs.map((j) => ({ id: ids[j]! }));
  return buildSchedule({
    departure,
    order: stops.map((_, k) => k),
    stops,
    times: route.times!,
    distancesM: [[0, ...route.jobs.map(() => 0)], ...route.jobs.map(() => [0, ...route.jobs.map(() => 0)])],
    hasEnd: false,
  });
}

test('notBefore (plans): an early vehicle waits, serviceStart says until when, and the waiting counts in the route time', () => {
  const r = plan([{ location: 1, service: 60, ready: readyS('08:30') }], ['a']);
  assert.deepEqual(r.schedule, [
    { colisId: 'a', arrivee: '2026-06-01T06:10:00Z', serviceStart: '2026-06-01T06:30:00Z' },
  ]);
  assert.equal(r.durationS, 31 * 60);
  assert.equal(r.lateStops, null);
});

test('a notBefore already past on arrival: no wait, no serviceStart', () => {
  const r = plan([{ location: 1, ready: readyS('08:00') }, { location: 2 }], ['a', 'b']);
  assert.deepEqual(
    r.schedule.map((e) => Object.keys(e)),
    [
      ['colisId', 'arrivee'],
      ['colisId', 'arrivee'],
    ],
  );
  assert.equal(r.durationS, 20 * 60);
});
