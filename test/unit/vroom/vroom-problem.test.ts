/**
 * A VROOM request to the fleet solver's problem (src/api/vroom/validate.ts, problem.ts): VROOM's times kept as
 * given, skills as allowed vehicles, amounts as capacities and demands, route limits, the speed factor and
 * VROOM's default cost (travel time only).
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { validateVroomRequest } from '../../../src/api/vroom/validate.js';
import { vroomProblem } from '../../../src/api/vroom/problem.js';
import { DISTANCE_OBJECTIVE } from '../../../src/solver/fleet-types.js';

const T = 1_700_000_000;
const durations = [
  [0, 100, 200, 300],
  [100, 0, 150, 250],
  [200, 150, 0, 120],
  [300, 250, 120, 0],
];
const distances = durations.map((row) => row.map((s) => s * 10));

/** The problem of `body` with the places as the matrix rows (the call's own matrix). */
function problemOf(body: object, matrix = { durationsS: durations, distancesM: distances }) {
  const call = validateVroomRequest(body);
  const placeOf = call.labelled.map((l) => ('index' in l.location ? l.location.index : 0));
  return vroomProblem(call, placeOf, matrix);
}

test("VROOM's times are the solver's: time_window is the shift, time_windows sorted and merged, service as given", () => {
  const p = problemOf({
    vehicles: [
      { id: 1, start_index: 0, end_index: 3, time_window: [T, T + 36_000] },
      { id: 2, start_index: 0 },
    ],
    jobs: [
      {
        id: 10,
        location_index: 1,
        service: 420,
        time_windows: [
          [T + 9000, T + 9600],
          [T + 1000, T + 2000],
          [T + 1500, T + 2500],
        ],
      },
      { id: 11, location_index: 2 },
    ],
    matrices: { car: { durations } },
  });
  assert.deepEqual(p.vehicles[0], { start: 0, end: 3, shiftStart: T, shiftEnd: T + 36_000 });
  assert.deepEqual(p.vehicles[1], { start: 0, shiftStart: 0 });
  assert.deepEqual(p.jobs[0], {
    location: 1,
    service: 420,
    windows: [
      [T + 1000, T + 2500],
      [T + 9000, T + 9600],
    ],
  });
  assert.deepEqual(p.jobs[1], { location: 2, service: 0 });
  assert.deepEqual(p.objective, DISTANCE_OBJECTIVE, "VROOM's default cost: the travel time");
  assert.equal(p.distance, undefined, 'the objective counts the travel times');
  assert.deepEqual([...p.travel], durations.flat());
});

test('skills become allowed vehicles; capacity, delivery, priority and the route limits carry over', () => {
  const p = problemOf({
    vehicles: [
      { id: 1, start_index: 0, skills: [1, 2], capacity: [5, 9], max_tasks: 3, max_travel_time: 3600 },
      { id: 2, start_index: 0, skills: [2], max_distance: 50_000 },
    ],
    jobs: [
      { id: 1, location_index: 1, skills: [1], delivery: [2, 1], priority: 40 },
      { id: 2, location_index: 2, skills: [2] },
      { id: 3, location_index: 3, skills: [3] },
    ],
    matrices: { car: { durations, distances } },
  });
  assert.deepEqual(p.vehicles[0], { start: 0, shiftStart: 0, capacity: [5, 9], maxStops: 3, maxDriving: 3600 });
  // no capacity while the call has amounts: no limit
  assert.deepEqual(p.vehicles[1], { start: 0, shiftStart: 0, capacity: [1e13, 1e13], maxDistance: 50_000 });
  assert.deepEqual(p.jobs[0]!.allowedVehicles, [0]);
  assert.deepEqual(p.jobs[0]!.demand, [2, 1]);
  assert.equal(p.jobs[0]!.priority, 40);
  assert.equal(p.jobs[1]!.allowedVehicles, undefined, 'every vehicle holds skill 2');
  assert.deepEqual(p.jobs[2]!.allowedVehicles, [], 'no vehicle holds skill 3');
  assert.deepEqual([...p.limitDistance!], distances.flat(), 'max_distance counts the metres');
});

test('speed_factor divides every travel time (two decimals kept), rounded to the second', () => {
  const p = problemOf({
    vehicles: [{ id: 1, start_index: 0, speed_factor: 1.504 }],
    jobs: [{ id: 1, location_index: 1 }],
    matrices: { car: { durations } },
  });
  assert.deepEqual(
    [...p.travel],
    durations.flat().map((s) => Math.round(s / 1.5)),
  );
});

test("VROOM's costs: fixed per vehicle, per_hour and per_km per leg, or the cost matrix by the caller's rows", () => {
  const priced = problemOf({
    vehicles: [{ id: 1, start_index: 0, costs: { fixed: 500, per_hour: 1800, per_km: 2 } }],
    jobs: [{ id: 1, location_index: 1 }],
    matrices: { car: { durations, distances } },
  });
  assert.deepEqual(priced.objective, { ...DISTANCE_OBJECTIVE, vehicleCost: 500 });
  assert.deepEqual(
    [...priced.distance!],
    durations.flatMap((row, i) => row.map((s, j) => Math.round(s / 2 + (distances[i]![j]! * 2) / 1000))),
  );
  const costs = durations.map((row) => row.map((s) => 3 * s + 1));
  const given = problemOf({
    vehicles: [{ id: 1, start_index: 0 }],
    // every row a place of the call, so that the places are the rows
    jobs: [1, 2, 3].map((row) => ({ id: row, location_index: row })),
    matrices: { car: { durations, costs } },
  });
  assert.deepEqual(
    [...given.distance!],
    costs.flatMap((row, i) => row.map((c, j) => (i === j ? 0 : c))),
  );
});

test('a setup at a place of its own is more service; at a place another task or a start shares (5 m), a named 400', () => {
  const body = (second: number[]) => ({
    vehicles: [{ id: 1, start: [2.35, 48.85] }],
    jobs: [
      { id: 1, location: [2.3, 48.86], setup: 90, service: 30 },
      { id: 2, location: second },
    ],
  });
  const call = validateVroomRequest(body([2.3, 48.861])); // about 110 m apart: two places
  const p = vroomProblem(call, [0, 1, 2], {
    durationsS: [
      [0, 1, 1],
      [1, 0, 1],
      [1, 1, 0],
    ],
    distancesM: [
      [0, 1, 1],
      [1, 0, 1],
      [1, 1, 0],
    ],
  });
  assert.equal(p.jobs[0]!.service, 120);
  assert.throws(
    () => validateVroomRequest(body([2.30001, 48.86001])), // about 1.3 m apart: one place
    (err: any) => err.extra.param === 'jobs[0].setup',
  );
  assert.throws(
    () =>
      validateVroomRequest({
        vehicles: [{ id: 1, start: [2.3, 48.86] }],
        jobs: [{ id: 1, location: [2.3, 48.86], setup: 90 }],
      }),
    (err: any) => err.extra.param === 'jobs[0].setup',
    'at the vehicle start',
  );
});
