/**
 * The fleet solver at the asynchronous API's sizes, in WebAssembly on this thread: one synthetic day of STOPS stops
 * and VANS vans (the native bench's `--random` day: stops uniform in a 30 km square around the depot at 30 km/h,
 * service 2–5 min, demands [1–30 kg, 1–3 parcels], vans of [1200 kg, 120 parcels], 07:00–17:00 shifts, 30 % of the
 * stops with a 2 h window, a third of the others with a soft deadline). Prints one JSON line: the time to build the
 * built-in travel model's matrix for as many points (the service's path: src/geo/routing/haversine.ts, then
 * src/calls/steps.ts wholeRowMajor), the time to the solver's first plan (its construction, reported by
 * `on_improve`), the solve, the plan's figures, the module's linear memory and the process's peak resident memory.
 *
 *   npm run --silent bench:scale -- [--stops 10000] [--vans 500] [--seconds 120] [--seed 1] [--no-haversine]
 *                                   [--iterations N]
 *
 * `--iterations N`: N search iterations instead of the time budget (1: the construction alone, never cut short).
 * `--warm`: solve the day once (one iteration) before the timed solve, on the same module, so that V8 has compiled
 * its hot functions with its optimising tier as in the service, which warms its solver at start (`warmUpSolver`);
 * without it the first plan is timed on a cold module, most of it in V8's baseline code.
 */
import { wholeRowMajor } from '../src/calls/steps.js';
import { HaversineProvider } from '../src/geo/routing/haversine.js';
import { WasmSolver } from '../src/solver/abi.js';
import { solveFleet } from '../src/solver/fleet-abi.js';
import { SERVICE_OBJECTIVE, type FleetJob, type FleetProblem } from '../src/solver/fleet-types.js';
import { compileSolverModule } from '../src/solver/load.js';
import { parseCliArgs } from './lib/cli-args.js';
import { peakRssMb } from './lib/plans-bench.js';

const USAGE =
  'usage: npm run --silent bench:scale -- [--stops 10000] [--vans 500] [--seconds 120] [--seed 1] [--no-haversine] [--iterations N] [--warm]';
const { values } = parseCliArgs(
  {
    stops: { type: 'string', default: '10000' },
    vans: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '120' },
    seed: { type: 'string', default: '1' },
    'no-haversine': { type: 'boolean', default: false },
    iterations: { type: 'string', default: '0' },
    warm: { type: 'boolean', default: false },
  },
  USAGE,
);
const [stops, vans, seconds, seed] = [values.stops, values.vans, values.seconds, values.seed].map(Number) as [
  number,
  number,
  number,
  number,
];
if (![stops, vans, seconds, seed].every((v) => Number.isInteger(v) && v > 0)) {
  process.stderr.write(`every option needs a whole number above 0\n${USAGE}\n`);
  process.exit(2);
}

/** xorshift32: the same day for a seed. */
function rng(s: number): (lo: number, hi: number) => number {
  let x = s >>> 0 || 1;
  return (lo, hi) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return lo + ((x >>> 0) % (hi - lo + 1));
  };
}

const int = rng(seed);
const m = stops + 1;
const points = Array.from({ length: m }, (_, i) => (i === 0 ? [15_000, 15_000] : [int(0, 30_000), int(0, 30_000)]));

// the built-in model over as many points around Paris (the service's matrix), timed and dropped
let haversineMs: number | null = null;
if (!values['no-haversine']) {
  const t = performance.now();
  const matrix = await new HaversineProvider().matrix(
    points.map(([x, y]) => ({ latitude: 48.72 + y! / 111_000, longitude: 2.2 + x! / 73_000 })),
    { avoidTolls: false },
  );
  wholeRowMajor(matrix.durationsS);
  haversineMs = Math.round(performance.now() - t);
}

const travel = new Int32Array(new SharedArrayBuffer(m * m * 4));
for (let a = 0; a < m; a++)
  for (let b = 0; b < m; b++) {
    const [dx, dy] = [points[a]![0]! - points[b]![0]!, points[a]![1]! - points[b]![1]!];
    travel[a * m + b] = Math.round(Math.sqrt(dx * dx + dy * dy) / (30_000 / 3600));
  }
const jobs: FleetJob[] = Array.from({ length: stops }, (_, k) => {
  const windowed = int(0, 9) < 3;
  const ready = windowed ? 8 * 3600 + int(0, 6 * 3600) : 0;
  const job: FleetJob = { location: k + 1, service: int(120, 300), demand: [int(1, 30), int(1, 3)] };
  if (windowed) Object.assign(job, { ready, due: ready + 2 * 3600 });
  else if (int(0, 5) < 2) job.deadline = 9 * 3600 + int(0, 6 * 3600);
  return job;
});
const problem: FleetProblem = {
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

let started = 0;
let firstPlanMs: number | null = null;
const solver = new WasmSolver(compileSolverModule(), {
  onImprove: () => {
    firstPlanMs ??= Math.round(performance.now() - started);
  },
});
const iterations = Number(values.iterations);
if (values.warm) {
  solveFleet(solver, problem, { maxIterations: 1 });
  firstPlanMs = null;
}
started = performance.now();
const result = solveFleet(
  solver,
  problem,
  iterations > 0 ? { maxIterations: iterations } : { timeLimitMs: seconds * 1000 },
);
console.log(
  JSON.stringify({
    bench: 'scale',
    stops,
    vans,
    budgetS: seconds,
    warm: values.warm,
    haversineMatrixMs: haversineMs,
    firstPlanMs,
    solveMs: Math.round(result.solveMs),
    iterations: result.iterations,
    assigned: stops - result.unassigned.length,
    vehiclesUsed: result.routes.filter((r) => r.jobs.length > 0).length,
    lateness: result.cost.lateness,
    wasmMemoryMb: Math.round(solver.exports.memory.buffer.byteLength / 2 ** 20),
    peakRssMb: peakRssMb(process.pid),
  }),
);
