/**
 * A synthetic delivery day for the fleet solver (`bench:solver -- --fleet-day N:V[:SEED]`),
 * the distribution of solver-rs/src/bin/solomon.rs `--random` (its own PRNG, so
 * not the same stops): N stops uniform in a 30 km square around the depot at
 * 30 km/h (integer seconds, Euclidean), service 2–5 min, demands [1–30 kg,
 * 1–3 parcels], 30 % of the stops with a 2 h window between 08:00 and 16:00,
 * a third of the others with a soft deadline, V vans of [1200 kg, 120
 * parcels] on a 07:00–17:00 shift, the service's objective. Prints the plan's
 * figures, the solve time and the peak memory of the process. `stall`: the
 * anytime stop (FleetOptions.stallIterations; 'service' = serviceStallIterations(stops)).
 * `N:V:SEED:S` makes the last 2S stops S shipments (pickup-and-delivery pairs, side by side in
 * the list; the delivery carries its pickup's demand), checked for precedence and load at every point.
 */
import {
  SERVICE_OBJECTIVE,
  serviceStallIterations,
  type FleetJob,
  type FleetProblem,
} from '../../src/solver/fleet-types.js';
import { DEFAULT_WASM_PATH } from '../../src/solver/load.js';
import { loadBenchSolver } from './bench-solver-load.js';
import { checkPlan, modelOf } from './fleet-check.js';
import { rng } from './rng.js';

export function fleetDay(stops: number, vans: number, seed = 1, shipments = 0): FleetProblem {
  const r = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const m = stops + 1;
  const pts = Array.from({ length: m }, (_, i) => (i === 0 ? [15_000, 15_000] : [int(0, 30_000), int(0, 30_000)]));
  const travel = new Int32Array(m * m);
  for (let a = 0; a < m; a++) {
    for (let b = 0; b < m; b++)
      travel[a * m + b] = Math.round(Math.hypot(pts[a][0] - pts[b][0], pts[a][1] - pts[b][1]) / (30_000 / 3600));
  }
  const jobs: FleetJob[] = Array.from({ length: stops }, (_, k) => {
    const job: FleetJob = { location: k + 1, service: int(120, 300), demand: [int(1, 30), int(1, 3)] };
    if (int(0, 9) < 3) {
      job.ready = 8 * 3600 + int(0, 6 * 3600);
      job.due = job.ready + 2 * 3600;
    } else if (int(0, 5) < 2) {
      job.deadline = 9 * 3600 + int(0, 6 * 3600);
    }
    return job;
  });
  const pairs = Array.from({ length: Math.min(shipments, Math.floor(stops / 2)) }, (_, k) => {
    const pickup = stops - 2 * (k + 1);
    jobs[pickup + 1]!.demand = [...jobs[pickup]!.demand!];
    return { pickup, delivery: pickup + 1 };
  });
  return {
    ...(pairs.length > 0 ? { shipments: pairs } : {}),
    locations: m,
    travel,
    vehicles: Array.from({ length: vans }, () => ({
      start: 0,
      end: 0,
      shiftStart: 7 * 3600,
      shiftEnd: 17 * 3600,
      capacity: [1200, 120],
    })),
    jobs,
    objective: SERVICE_OBJECTIVE,
  };
}

export function runFleetDay(
  spec: string,
  timeLimitMs: number,
  wasm: string = DEFAULT_WASM_PATH,
  fail: (msg: string) => never,
  stall: number | 'service' = 0,
): void {
  const parts = spec.split(':').map(Number);
  if (parts.length < 2 || parts.some((x, k) => !Number.isInteger(x) || x < (k === 3 ? 0 : 1)))
    fail('--fleet-day needs STOPS:VANS[:SEED[:SHIPMENTS]], e.g. 1000:20 or 1000:20:1:200');
  const [stops, vans, seed = 1, shipments = 0] = parts;
  const p = fleetDay(stops, vans, seed, shipments);
  const solver = loadBenchSolver(wasm, false, fail);
  const t0 = performance.now();
  const stallIterations = stall === 'service' ? serviceStallIterations(stops) : stall;
  const r = solver.solveFleet(p, { seed: 1, timeLimitMs, stallIterations });
  const ms = performance.now() - t0;
  checkPlan(
    modelOf(p),
    r.routes,
    r.unassigned.map((u) => u.job),
  );
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(
    `fleet day ${stops} stops${shipments ? ` (${p.shipments?.length ?? 0} shipments among them)` : ''}, ${vans} vans, seed ${seed}, time limit ${timeLimitMs} ms${stallIterations ? `, stall ${stallIterations}` : ''} (WASM): ${ms.toFixed(0)} ms wall, ` +
      `${r.iterations} iterations (best at ${r.bestIteration}), unassigned ${r.cost.unassigned}, lateness ${r.cost.lateness} s, vans ${r.cost.vehicles}, ` +
      `duration ${r.cost.duration} s, plan checked, peak RSS of the process ${peakMb.toFixed(0)} MB`,
  );
}
