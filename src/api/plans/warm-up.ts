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
import type { FleetResult } from '../../solver/fleet-types.js';
import type { StopTimes } from '../../solver/types.js';
import { fleetProblem, planLayout } from './problem.js';
import { planAnswer } from './response.js';
import { validatePlanRequest } from './validate.js';

const WARM_UP_STOPS = 300;
const WARM_UP_ROUNDS = 4;
/** Seconds of every synthetic leg. */
const LEG_S = 90;

/** Runs the warm-up; resolves with the ms it took (start-up logs it). */
export async function warmUpPlans(): Promise<number> {
  const started = performance.now();
  for (let round = 0; round < WARM_UP_ROUNDS; round++) await warmUpOnce(round);
  return performance.now() - started;
}

async function warmUpOnce(round: number): Promise<void> {
  const body = JSON.stringify({
    vehicles: [{ id: 'warm-up', start: { latitude: 48.85, longitude: 2.35 }, capacity: [1000] }],
    stops: Array.from({ length: WARM_UP_STOPS }, (_, i) => ({
      id: `s${i}`,
      latitude: 48.8 + ((i * 37 + round) % 100) / 1000,
      longitude: 2.3 + ((i * 61) % 100) / 1000,
      serviceSeconds: 60,
      demand: [1],
    })),
  });
  const parsed: unknown = JSON.parse(body);
  inspectJson(parsed, 32);
  const request = validatePlanRequest(parsed);
  const layout = planLayout(request);
  const located = places(layout.labelled.map((l) => l.location as { latitude: number; longitude: number }));
  const matrix = await new HaversineProvider().matrix(located.points, { avoidTolls: false });
  const departure = resolveDeparture(undefined, new Date());
  fleetProblem(request, layout, located.index, matrix, departure);
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
