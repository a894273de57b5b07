import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { places } from '../../../src/calls/places.js';
import { fleetProblem, planLayout, planTimeLimitMs, vehicleWindow } from '../../../src/api/plans/problem.js';
import { resolveDeparture } from '../../../src/schedule/index.js';
import { validatePlanRequest } from '../../../src/api/plans/validate.js';

const depot = { latitude: 48.8566, longitude: 2.3522 };
const departure = resolveDeparture('2026-06-01T08:00:00+02:00', new Date());

test("a plan's budget: 10 ms per stop, at least 200 ms, at most the ceiling", () => {
  const settings = { ceilingMs: 10_000, msPerStop: 10 };
  assert.deepEqual(
    [5, 20, 100, 1000].map((n) => planTimeLimitMs(n, settings)),
    [200, 200, 1000, 10_000],
  );
  assert.equal(planTimeLimitMs(1000, { ceilingMs: 150, msPerStop: 10 }), 150);
});

test('vehicle windows in seconds after the departure: shift start and end on the Paris day; a shift over before departure leaves no time', () => {
  assert.deepEqual(vehicleWindow({ id: 'v', start: depot }, departure), { startS: 0 });
  assert.deepEqual(vehicleWindow({ id: 'v', start: depot, shift: { start: '09:30', end: '17:00' } }, departure), {
    startS: 5400,
    endS: 9 * 3600,
  });
  assert.deepEqual(vehicleWindow({ id: 'v', start: depot, shift: { start: '06:00' } }, departure), { startS: 0 });
  assert.deepEqual(vehicleWindow({ id: 'v', start: depot, shift: { start: '05:00', end: '07:00' } }, departure), {
    startS: 0,
    endS: 0,
  });
});

test('the fleet problem: one matrix over the places, notBefore and deadlines in seconds, vehicles without a capacity unlimited, allowed vehicles as indices', () => {
  const request = validatePlanRequest({
    vehicles: [
      { id: 'a', start: depot, end: depot, capacity: [10] },
      { id: 'b', start: depot, maxStops: 3 },
    ],
    stops: [
      {
        id: 's1',
        latitude: 48.86,
        longitude: 2.34,
        notBefore: '09:00',
        deadline: '10:00',
        demand: [4],
        serviceSeconds: 90.4,
      },
      { id: 's2', ...depot, deadline: '07:00', allowedVehicles: ['b'] },
    ],
  });
  const layout = planLayout(request);
  const points = layout.labelled.map((l) => l.location as { latitude: number; longitude: number });
  const { points: distinct, index } = places(points);
  assert.equal(distinct.length, 2);
  const size = distinct.length;
  const matrix = {
    durationsS: [
      [0, 100.4],
      [99.6, 0],
    ],
    distancesM: [
      [0, 1000],
      [1000, 0],
    ],
  };
  const problem = fleetProblem(request, layout, index, matrix, departure);
  assert.equal(problem.locations, size);
  assert.deepEqual([...problem.travel], [0, 100, 100, 0]);
  assert.deepEqual(problem.vehicles, [
    { start: 0, end: 0, shiftStart: 0, capacity: [10] },
    { start: 0, shiftStart: 0, capacity: [1e13], maxStops: 3 },
  ]);
  assert.deepEqual(problem.jobs, [
    { location: 1, service: 90, ready: 3600, deadline: 7200, demand: [4] },
    { location: 0, service: 0, deadline: -3600, allowedVehicles: [1] }, // already past: the solver counts it from 0 in its search only
  ]);
});
