/**
 * One problem through both paths: optimize's (the route solver, one vehicle) and plans' (the fleet
 * solver). Both answers' schedules are made of the solver's times, and for the same visiting order
 * both solvers time every stop alike: the time arithmetic has one owner, the solver.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { buildSchedule, resolveDeparture, solverDeadlineOffsetS } from '../../../src/schedule/index.js';
import { SERVICE_OBJECTIVE, loadSolver, type FleetProblem, type SolveProblem } from '../../../src/solver/index.js';

const solver = loadSolver();
const departure = resolveDeparture('2026-06-01T09:00', new Date(0)); // Paris: 07:00Z
// start (= end), six stops on a ring; symmetric travel, seconds
const n = 6;
const xy = [
  [0, 0],
  [900, 0],
  [900, 900],
  [0, 900],
  [-900, 900],
  [-900, 0],
  [-450, -600],
];
const travel = xy.map((a) => xy.map((b) => Math.round(Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!))));
const stops = Array.from({ length: n }, (_, i) => ({
  id: `s${i}`,
  serviceS: 60 * (i % 3),
  deadline: i === 3 ? '09:25' : i === 5 ? '08:30' : undefined,
}));

test('optimize and plans: the same stops, the same times from the solver, the same schedule', () => {
  // optimize: [start, stops…, end], the route solver
  const m = n + 2;
  const cell = (i: number, j: number) => travel[i === m - 1 ? 0 : i]![j === m - 1 ? 0 : j]!;
  const route: SolveProblem = {
    durations: Int32Array.from({ length: m * m }, (_, k) => cell(Math.floor(k / m), k % m)),
    size: m,
    serviceS: Int32Array.from(stops, (s) => s.serviceS),
    deadlineS: Int32Array.from(stops, (s) => solverDeadlineOffsetS(s.deadline, departure)),
    hasEnd: true,
  };
  const solved = solver.solve(route, { seed: 1, maxIterations: 200 });
  // plans: the distinct points, one vehicle back at its start, the fleet solver
  const fleet: FleetProblem = {
    locations: n + 1,
    travel: Int32Array.from(travel.flat()),
    vehicles: [{ start: 0, end: 0 }],
    jobs: stops.map((s, i) => ({
      location: i + 1,
      service: s.serviceS,
      ...(s.deadline ? { deadline: solverDeadlineOffsetS(s.deadline, departure) } : {}),
    })),
    objective: SERVICE_OBJECTIVE,
  };
  const planned = solver.solveFleet(fleet, { seed: 1, maxIterations: 200 }).routes[0]!;
  assert.equal(planned.jobs.length, n);

  // the fleet's order timed by the route solver: the same numbers, stop by stop
  assert.deepEqual(solver.evaluate(route, planned.jobs), planned.times);
  assert.deepEqual(solver.evaluate(route, solved.order), solved.times);
  // the same order in both (one exact optimum of lateness, then duration)
  assert.deepEqual(planned.jobs, solved.order);

  const distancesM = travel.map((row) => row.map((x) => 10 * x));
  const optimizeAnswer = buildSchedule({
    departure,
    order: solved.order,
    stops,
    times: solved.times!,
    distancesM: [...distancesM, distancesM[0]!].map((row) => [...row, row[0]!]),
    hasEnd: true,
  });
  const sub = (nodes: number[]) => nodes.map((a) => nodes.map((b) => distancesM[a]![b]!));
  const plansAnswer = buildSchedule({
    departure,
    order: planned.jobs.map((_, k) => k),
    stops: planned.jobs.map((j) => stops[j]!),
    times: planned.times!,
    distancesM: sub([0, ...planned.jobs.map((j) => j + 1), 0]),
    hasEnd: true,
  });
  assert.deepEqual(plansAnswer, optimizeAnswer);
  // a stop due before the departure is late by the full amount, on both paths
  assert.ok(optimizeAnswer.lateStops?.some((l) => l.colisId === 's5' && l.limite === '2026-06-01T06:30:00Z'));
});
