/**
 * Solver builds on service-like problems: the coordinate requests of bench:api
 * (start in central Paris, stops drawn in a 0.16° × 0.26° box around it, open
 * route), turned into a matrix by the built-in travel model as the service
 * does (HaversineProvider with its defaults), solved in-thread by each build
 * with the time limit given (default: the service's default, 250 ms) and the
 * build's own convergence stop. Answers "is the route as good, and how long
 * did the solve take?" without the HTTP layer.
 *
 *   npm run --silent bench:solver-service -- [--sizes 200] [--count 10]
 *        [--build FILE[@MS] ...] [--seed S] [--stall N] [--json]
 *
 * Instance k of size N uses generator seed N + k: instance 0 is exactly
 * bench:api's request. Default builds: data/solver/solver.wasm at 250 ms.
 * --stall N overrides the builds' convergence stop (kicks without a new best
 * route; default 0 = each build's own default, as in the service).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { HaversineProvider } from '../src/geo/routing/haversine.js';
import { NO_DEADLINE } from '../src/solver/abi-constants.generated.js';
import { DEFAULT_WASM_PATH, loadSolver } from '../src/solver/load.js';
import type { SolveProblem } from '../src/solver/types.js';
import { parisStops } from './lib/paris-stops.js';

const SERVICE_DEFAULT_TIME_LIMIT_MS = 250;

function fail(msg: string): never {
  console.error(`bench-solver-service: ${msg}`);
  process.exit(2);
}

let values: { sizes?: string; count?: string; build?: string[]; seed?: string; stall?: string; json?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '200' },
      count: { type: 'string', default: '10' },
      build: { type: 'string', multiple: true },
      seed: { type: 'string', default: '1' },
      stall: { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const sizes = values.sizes!.split(',').map(Number);
const count = Number(values.count);
const seed = Number(values.seed);
const stall = Number(values.stall);
if (
  sizes.some((s) => !Number.isInteger(s) || s < 1) ||
  !Number.isInteger(count) ||
  count < 1 ||
  !Number.isInteger(seed) ||
  seed < 0 ||
  !Number.isInteger(stall) ||
  stall < 0
) {
  fail('--sizes, --count, --seed and --stall need integers >= 0');
}
const builds = (values.build ?? [DEFAULT_WASM_PATH]).map((b) => {
  const at = b.lastIndexOf('@');
  const file = at > 0 ? b.slice(0, at) : b;
  const ms = at > 0 ? Number(b.slice(at + 1)) : SERVICE_DEFAULT_TIME_LIMIT_MS;
  if (!Number.isFinite(ms) || ms < 0) fail(`bad time limit in --build ${b}`);
  return { label: b, file: resolve(file), ms };
});

/** bench:api's stops (scripts/lib/paris-stops.ts), so instance 0 is its request. */
const stopsAround = (n: number, genSeed: number) =>
  parisStops(n, genSeed).map(({ latitude, longitude }) => ({ latitude, longitude }));

async function problemFor(n: number, genSeed: number): Promise<SolveProblem> {
  const points = [{ latitude: 48.8566, longitude: 2.3522 }, ...stopsAround(n, genSeed)];
  const m = await new HaversineProvider().matrix(points, { avoidTolls: false });
  const size = points.length;
  const durations = new Int32Array(size * size);
  for (let i = 0; i < size; i++)
    for (let j = 0; j < size; j++) durations[i * size + j] = Math.round(m.durationsS[i][j]);
  return {
    durations,
    size,
    hasEnd: false,
    serviceS: new Int32Array(n),
    deadlineS: new Int32Array(n).fill(NO_DEADLINE),
  };
}

const solvers = builds.map((b) => loadSolver(b.file));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const n of sizes) {
  const durations: number[][] = builds.map(() => []);
  const times: number[][] = builds.map(() => []);
  for (let k = 0; k < count; k++) {
    const p = await problemFor(n, n + k);
    builds.forEach((b, i) => {
      const r = solvers[i].solve(p, { seed, timeLimitMs: b.ms, stallIterations: stall, report: true });
      durations[i].push(r.durationS);
      times[i].push(r.solveMs);
      if (values.json)
        console.log(
          JSON.stringify({
            stops: n,
            instance: k,
            build: b.label,
            timeLimitMs: b.ms,
            durationS: r.durationS,
            ms: Math.round(r.solveMs * 100) / 100,
            iterations: r.iterations,
            finalIteration: r.report?.finalIteration,
            msToFinal: r.report ? Math.round(r.report.msToFinal * 100) / 100 : undefined,
          }),
        );
    });
  }
  if (values.json) continue;
  console.log(`${n} stops, ${count} instances (instance 0 = bench:api's), open route, haversine model, seed ${seed}`);
  builds.forEach((b, i) => {
    const rel = durations[i].map((d, k) => d / durations[0][k]);
    const better = durations[i].filter((d, k) => d < durations[0][k]).length;
    const worse = durations[i].filter((d, k) => d > durations[0][k]).length;
    console.log(
      `  #${i + 1} ${b.label} @ ${b.ms} ms: mean duration ${(durations[i].reduce((s, d) => s + d, 0) / count).toFixed(1)} s` +
        ` (instance 0: ${durations[i][0]} s), vs #1: mean ratio ${(rel.reduce((s, x) => s + x, 0) / count).toFixed(5)}, better ${better} / worse ${worse};` +
        ` solve ms p50 ${median(times[i]).toFixed(1)} max ${Math.max(...times[i]).toFixed(1)}`,
    );
  });
}
