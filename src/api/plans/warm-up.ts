/**
 * Start-up warm-up of a plan's main-thread path: a synthetic plan of WARM_UP_STOPS stops is parsed, checked
 * (src/http/body.ts), validated, laid out, its places found, its matrix built by the built-in model, its
 * problem made, and an answer shaped for a one-route solution of it, WARM_UP_ROUNDS times (about 100 ms, before
 * the port is served). V8 optimizes a function only once it has run: without this, the first big plans after
 * a start ran the validator, the JSON check and the answer's schedules cold, several times slower (7 ms
 * instead of 1 ms to validate 1000 stops; 45–60 ms instead of 15 ms to shape their answer), each in one
 * piece on the main thread, as a flood arrived. Nothing here is kept, charged or sent anywhere.
 */
import { inspectJson } from '../../http/body.js';
import { places } from '../../calls/places.js';
import { HaversineProvider } from '../../geo/index.js';
import { resolveDeparture } from '../../schedule/index.js';
import type { FleetProblem, FleetResult } from '../../solver/fleet-types.js';
import type { StopTimes } from '../../solver/types.js';
import type { PlanSolver } from './pipeline.js';
import { fleetProblem, planLayout, type PlanLayout } from './problem.js';
import { planAnswer } from './response.js';
import { validatePlanRequest } from './validate.js';

const WARM_UP_STOPS = 300;
const WARM_UP_ROUNDS = 4;
const WARM_UP_DEPARTURE = '2026-06-01T07:00:00+02:00';
/** Seconds of every synthetic leg. */
const LEG_S = 90;

/** Runs the warm-up; resolves with the ms it took (start-up logs it). */
export async function warmUpPlans(): Promise<number> {
  const started = performance.now();
  for (let round = 0; round < WARM_UP_ROUNDS; round++) await warmUpOnce(round);
  return performance.now() - started;
}

/**
 * Warms the solver module: a synthetic day of SOLVER_WARM_UP.stops stops (windows, demands) for
 * SOLVER_WARM_UP.vans vans, solved for SOLVER_WARM_UP.iterations iterations on `solver`'s pool; resolves with
 * the ms it took. V8 runs a WebAssembly function in its baseline code until it has run for a while, then
 * optimizes it on other threads; the workers share the pool's compiled module and its optimized code, so one
 * warm solve on any worker serves them all. Without it the first big plan after a start ran its first thousand
 * iterations of a 1000 × 20 day in 1.23–1.41 s of wall time instead of 1.08–1.13 s (docs/benchmarks.md, fifteenth
 * pass). Nothing here is kept, charged or sent anywhere.
 */
export async function warmUpPlanSolver(solver: PlanSolver): Promise<number> {
  const started = performance.now();
  const { problem } = await warmUpProblem(warmUpBody(SOLVER_WARM_UP.stops, SOLVER_WARM_UP.vans, 0));
  // the lanes count this as one small solve (it holds one worker for about 0.25 s)
  await solver.solveFleet(problem, { maxIterations: SOLVER_WARM_UP.iterations, timeLimitMs: SOLVER_WARM_UP.laneMs });
  return performance.now() - started;
}

/** The time rules of the solver warm-up's stops, by stop index modulo their count. */
const WARM_UP_TIMES: ReadonlyArray<object> = [
  { deadline: '17:00' },
  {},
  {},
  { notBefore: '10:00' },
  {},
  {},
  { timeWindows: [{ start: '09:00', end: '16:00' }] },
  {},
  {},
];

/** The solver warm-up's day: 50 iterations of 200 stops optimize the hot functions about as well as 300 of 500. */
const SOLVER_WARM_UP = { stops: 200, vans: 4, iterations: 50, laneMs: 500 };

/**
 * A synthetic plan body: `stops` stops around central Paris, one parcel each; with several `vans`, one stop in
 * three has a time rule (a deadline, a notBefore or a window: WARM_UP_TIMES) and the vans a shift.
 */
function warmUpBody(stops: number, vans: number, round: number): string {
  return JSON.stringify({
    // a fixed morning: a start-up at night would otherwise find every shift over
    departureTime: WARM_UP_DEPARTURE,
    vehicles: Array.from({ length: vans }, (_, k) => ({
      id: `warm-up-${k}`,
      start: { latitude: 48.85, longitude: 2.35 },
      // several vans: their capacities (a fifth over the demand) keep any one from taking the whole day
      capacity: [vans > 1 ? Math.ceil((stops * 1.2) / vans) : 1000],
      ...(vans > 1 ? { shift: { start: '07:00', end: '19:00' } } : {}),
    })),
    stops: Array.from({ length: stops }, (_, i) => ({
      id: `s${i}`,
      latitude: 48.8 + ((i * 37 + round) % 100) / 1000,
      longitude: 2.3 + ((i * 61) % 100) / 1000,
      serviceSeconds: 60,
      demand: [1],
      ...(vans > 1 ? WARM_UP_TIMES[i % WARM_UP_TIMES.length] : {}),
    })),
  });
}

/** The plan path up to the solver's problem: parse, check, validate, lay out, place, matrix, problem. */
async function warmUpProblem(body: string) {
  const parsed: unknown = JSON.parse(body);
  inspectJson(parsed, 32);
  const request = validatePlanRequest(parsed);
  const layout: PlanLayout = planLayout(request);
  const located = places(layout.labelled.map((l) => l.location as { latitude: number; longitude: number }));
  const matrix = await new HaversineProvider().matrix(located.points, { avoidTolls: false });
  const departure = resolveDeparture(request.departureTime, new Date());
  const problem: FleetProblem = fleetProblem(request, layout, located.index, matrix, departure);
  return { request, layout, located, matrix, departure, problem };
}

async function warmUpOnce(round: number): Promise<void> {
  const { request, layout, located, matrix, departure } = await warmUpProblem(warmUpBody(WARM_UP_STOPS, 1, round));
  const jobs = request.stops.map((_, i) => i);
  const stops = jobs.map((i): StopTimes => ({
    arrivalS: (i + 1) * (LEG_S + 60) - 60,
    waitS: 0,
    startS: (i + 1) * (LEG_S + 60) - 60,
    departureS: (i + 1) * (LEG_S + 60),
    latenessS: 0,
  }));
  const endS = stops.at(-1)!.departureS + LEG_S;
  const solution: FleetResult = {
    routes: [
      {
        vehicle: 0,
        jobs,
        starts: stops.map((s) => s.startS),
        times: { departureS: 0, stops, endS, durationS: endS, latenessS: 0 },
        duration: endS,
        distance: 0,
        lateness: 0,
      },
    ],
    unassigned: [],
    cost: { unassigned: 0, lateness: 0, vehicles: 1, duration: endS, distance: 0, main: 0 },
    iterations: 0,
    bestIteration: 0,
    solveMs: 0,
  };
  const locations = layout.labelled.map((l, i) => ({ ...l, point: located.points[located.index[i]!]! }));
  JSON.stringify(
    planAnswer({
      request,
      layout,
      locations,
      placeOf: located.index,
      distancesM: matrix.distancesM,
      departure,
      solution,
    }),
  );
}
