/**
 * The Solomon VRPTW bench of the WebAssembly fleet solver (`bench:solver -- --solomon DIR`):
 *
 *   npm run --silent bench:solver -- --solomon DIR [--time-limit-ms N] [--objective distance|vehicles|service]
 *        [--json] [--seed S] [--max-iterations N] [--stall N|service] [--only C1,R2,RC101] [--cpu-clock] [--wasm FILE]
 *        [--size 200|400|600|800|1000] [--sample K] [--seeds K] [--workers N]
 *
 * DIR may also be data/homberger (Gehring–Homberger, 200–1000 customers): its bks.csv holds the 12th DIMACS
 * challenge's distance-only best-known values, so the plan is solved and checked on arcs truncated to one decimal
 * (travel time = distance) and `gap%` is the truncated total vs those values. `--size N` keeps the instances of
 * N customers, `--sample K` a stratified sample of K of them (the same per class, evenly spaced: repeatable).
 * `--seeds K` solves each instance with seeds S..S+K-1 (one line each, `seed` in the JSON line) and adds each seed's
 * mean gap to the summary: one seed's mean moves by a tenth of a point on Solomon at 1 s. `--workers N` shares the
 * runs among N child processes (`--shard I/N` each, scripts/lib/bench-workers.ts), one per core: each has its own
 * module and CPU clock, so `--cpu-clock` budgets hold, and the lines come back in the same order as from one process.
 *
 * Hard windows (notBefore = READY TIME, due = DUE DATE), the instance's fleet
 * (25 vehicles of its capacity), Euclidean distances, fixed point inside the
 * solver (scripts/lib/solomon.ts). Each plan is checked in unrounded doubles
 * by the shared plan checker; the total is printed unrounded and with each arc
 * truncated to one decimal, `gap%` = truncated total vs bks.csv's
 * `distance_only` (proven optima, same convention), `hgap%` = unrounded total vs
 * the hierarchical best known `distance`. A per-class summary follows.
 * `--objective service`: the service's objective (vehicles, then total duration, waiting included);
 * `--stall N` stops a plan after N iterations without improvement (`service`: the service's rule,
 * serviceStallIterations(100)).
 * --json: one line per instance {"instance","routes","distance","vehicles","ms"}
 * (routes: customer numbers in visiting order, depot excluded; distance: the
 * unrounded total, null when the plan is infeasible), then "feasible",
 * "truncated", "gap", "iterations", "bestIteration", "duration" (solver units, 1e-5), "seed" and, for an
 * infeasible plan, "problem" (why) as additions.
 */
import { SERVICE_OBJECTIVE, serviceStallIterations } from '../../src/solver/fleet-types.js';
import type { InThreadSolver } from '../../src/solver/load.js';
import { loadBenchSolver } from './bench-solver-load.js';
import { fleetBenchDefaults, readCommonFleetArg, type FleetBenchArgs } from './fleet-bench-args.js';
import { SolverError } from '../../src/solver/errors.js';
import {
  checkSolomon,
  customerCount,
  customerRoutes,
  loadSolomonDir,
  solomonClass,
  solomonProblem,
  stratifiedSample,
  type ArcConvention,
  type BestKnown,
  type SolomonInstance,
} from './solomon.js';
import { ArgReader } from './cli-args.js';
import { warmUp } from './warm-up.js';
import { meanCI } from './compare/stats.js';
import { inShard, parseShard, runShards, SHARD_USAGE, type Shard } from './bench-workers.js';

export interface SolomonArgs extends FleetBenchArgs {
  service: boolean;
  stallIterations: number;
  /** Customers per instance to keep (0: all). */
  size: number;
  /** A stratified sample of this many instances (0: all). */
  sample: number;
  /** Seeds seed..seed + seeds - 1, each instance once per seed. */
  seeds: number;
  /** Child processes that share the runs (`bench-workers.ts`); 1: this process alone. */
  workers: number;
  /** Only this share of the runs (a worker's part; JSON lines only). */
  shard: Shard | null;
}

export const SOLOMON_USAGE =
  'usage: bench:solver -- --solomon DIR [--time-limit-ms N] [--objective distance|vehicles|service] [--json] [--seed S] [--max-iterations N] [--stall N|service] [--only C1,R2,RC101] [--cpu-clock] [--wasm FILE] [--size N] [--sample K] [--seeds K] [--workers N]';

export function parseSolomonArgs(argv: string[], fail: (msg: string) => never): SolomonArgs {
  const a: SolomonArgs = {
    ...fleetBenchDefaults(),
    service: false,
    stallIterations: 0,
    size: 0,
    sample: 0,
    seeds: 1,
    workers: 1,
    shard: null,
  };
  const args = new ArgReader(argv, fail);
  for (let k = args.next(); k !== undefined; k = args.next()) {
    switch (k) {
      case '--solomon':
        a.dir = args.value();
        break;
      case '--objective': {
        const o = args.value();
        if (o !== 'distance' && o !== 'vehicles' && o !== 'service')
          fail('--objective is distance, vehicles or service');
        a.vehiclesFirst = o === 'vehicles';
        a.service = o === 'service';
        break;
      }
      case '--stall': {
        const v = args.value();
        a.stallIterations = v === 'service' ? serviceStallIterations(100) : Number(v);
        if (!Number.isInteger(a.stallIterations) || a.stallIterations < 0)
          fail('--stall needs an integer >= 0 or "service"');
        break;
      }
      case '--size':
        a.size = args.integer();
        break;
      case '--sample':
        a.sample = args.integer();
        break;
      case '--seeds':
        a.seeds = args.integer();
        if (a.seeds < 1) fail('--seeds needs an integer >= 1');
        break;
      case '--workers':
        a.workers = args.integer();
        if (a.workers < 1) fail('--workers needs an integer >= 1');
        break;
      case '--shard':
        a.shard = parseShard(args.value());
        if (a.shard === null) fail(`--shard: ${SHARD_USAGE}`);
        a.json = true;
        break;
      case '-h':
      case '--help':
        console.log(SOLOMON_USAGE);
        process.exit(0);
      default:
        if (!readCommonFleetArg(k, args, a)) fail(`unknown argument ${k}\n${SOLOMON_USAGE}`);
    }
  }
  if (a.timeLimitMs === 0 && a.maxIterations === 0) fail('give --time-limit-ms N or --max-iterations N');
  return a;
}

/** One solve of one instance with one seed: its JSON line (the DESIGN.md contract's fields first). */
interface RunResult {
  instance: string;
  routes: number[][];
  /** The unrounded total (the truncated one under the DIMACS convention); null when infeasible. */
  distance: number | null;
  vehicles: number;
  ms: number;
  feasible: boolean;
  truncated: number | null;
  gap: number | null;
  iterations: number;
  bestIteration: number;
  duration: number;
  seed: number;
  /** Why the plan is not feasible (only then). */
  problem?: string;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => {
  const s = [...xs].sort((p, q) => p - q);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)];
};
const pad = (cells: Array<string | number>, widths: number[]) =>
  cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
const fixed = (x: number | null | undefined, d: number) =>
  x !== null && x !== undefined && Number.isFinite(x) ? x.toFixed(d) : '-';

export async function runSolomonBench(a: SolomonArgs, fail: (msg: string) => never): Promise<void> {
  let loaded: ReturnType<typeof loadSolomonDir>;
  try {
    loaded = loadSolomonDir(a.dir);
  } catch (err) {
    fail(`cannot read ${a.dir}: ${(err as Error).message}`);
  }
  const chosen = (inst: SolomonInstance) =>
    (a.only.length === 0 || a.only.includes(inst.name.toUpperCase()) || a.only.includes(solomonClass(inst.name))) &&
    (a.size === 0 || customerCount(inst) === a.size);
  let instances = loaded.instances.filter(chosen);
  if (a.sample > 0) instances = stratifiedSample(instances, a.sample);
  const filters = [a.only.length ? `matching ${a.only.join(',')}` : '', a.size ? `of ${a.size} customers` : '']
    .filter(Boolean)
    .join(' ');
  if (instances.length === 0) fail(`no Solomon instance (*.txt) in ${a.dir}${filters ? ` ${filters}` : ''}`);
  const { convention, bks } = loaded;
  // instance by instance, each with every seed
  const runs = instances.flatMap((inst) => Array.from({ length: a.seeds }, (_, k) => ({ inst, seed: a.seed + k })));
  const table = new Table(a, convention, bks);
  if (!a.json) table.header();

  if (a.workers > 1 && a.shard === null) {
    // each run as it comes, in the order one process prints them (the shards interleave, so little waits)
    const came = new Map<string, RunResult>();
    const key = (instance: unknown, seed: unknown) => `${String(instance)}#${Number(seed)}`;
    let next = 0;
    await runShards(a.workers, ['--workers'], fail, (line) => {
      came.set(key(line.instance, line.seed), line as unknown as RunResult);
      for (; next < runs.length; next++) {
        const k = key(runs[next].inst.name, runs[next].seed);
        const r = came.get(k);
        if (!r) break;
        came.delete(k);
        if (a.json) console.log(JSON.stringify(r));
        else table.row(r);
      }
    });
    if (next < runs.length)
      fail(`the worker processes returned no run of ${runs[next].inst.name} with seed ${runs[next].seed}`);
  } else {
    const mine = runs.filter((_, i) => inShard(a.shard, i));
    if (mine.length === 0) return;
    const solver = loadBenchSolver(a.wasm, a.cpuClock, fail);
    const problemOf = (inst: SolomonInstance) => {
      const planned = solomonProblem(inst, a.vehiclesFirst, convention);
      if (a.service) planned.objective = SERVICE_OBJECTIVE;
      return planned;
    };
    // the measured solves' objective: the warm-up optimizes the functions they run
    warmUp(solver, problemOf(mine[0]!.inst));
    for (const { inst, seed } of mine) {
      let r: ReturnType<typeof solver.solveFleet>;
      try {
        r = solver.solveFleet(problemOf(inst), {
          seed,
          timeLimitMs: a.maxIterations ? 0 : a.timeLimitMs,
          maxIterations: a.maxIterations,
          stallIterations: a.stallIterations,
        });
      } catch (err) {
        if (!(err instanceof SolverError)) throw err;
        fail(
          `${inst.name} (${customerCount(inst)} customers, ${inst.vehicles} vehicles): this solver build refuses it: ${err.message}${err.statusName ? ` (${err.statusName})` : ''}`,
        );
      }
      const result = checked(inst, seed, r, convention, bks.get(inst.name));
      if (a.json) console.log(JSON.stringify(result));
      else table.row(result);
    }
  }
  if (!a.json) table.summary();
}

/** The solver's answer checked by the plan checker and measured against the best-known value. */
function checked(
  inst: SolomonInstance,
  seed: number,
  r: ReturnType<InThreadSolver['solveFleet']>,
  convention: ArcConvention,
  b: BestKnown | undefined,
): RunResult {
  const routes = customerRoutes(r.routes);
  let distance = NaN;
  let truncated = NaN;
  let problem = '';
  if (r.unassigned.length > 0) problem = `${r.unassigned.length} customers unassigned`;
  else {
    try {
      ({ distance, tenths: truncated } = checkSolomon(inst, routes, convention));
    } catch (err) {
      problem = (err as Error).message;
    }
  }
  const feasible = problem === '';
  const gap = b ? (100 * (truncated - b.distanceOnly)) / b.distanceOnly : NaN;
  return {
    instance: inst.name,
    routes,
    distance: feasible ? distance : null,
    vehicles: routes.length,
    ms: Math.round(r.solveMs * 10) / 10,
    feasible,
    truncated: feasible ? truncated : null,
    gap: feasible && b ? Math.round(gap * 1e4) / 1e4 : null,
    iterations: r.iterations,
    bestIteration: r.bestIteration,
    duration: r.cost.duration,
    seed,
    ...(feasible ? {} : { problem }),
  };
}

/** The text report: a row per run, then per class (and, with several seeds, per seed). */
class Table {
  private readonly results: RunResult[] = [];
  private readonly widths: number[];

  constructor(
    private readonly a: SolomonArgs,
    private readonly convention: ArcConvention,
    private readonly bks: Map<string, BestKnown>,
  ) {
    this.widths = [6, 4, 4, 11, 10, 9, 8, 5, 9, 7, 7, 9, ...(a.seeds > 1 ? [5] : [])];
  }

  header(): void {
    const a = this.a;
    if (this.convention === 'dimacs')
      console.log(
        'DIMACS convention: arcs truncated to one decimal (travel time = distance), gaps vs the distance-only best-known values',
      );
    const seeds = a.seeds > 1 ? `seeds ${a.seed}..${a.seed + a.seeds - 1}` : `seed ${a.seed}`;
    console.log(
      `WASM fleet solver, objective ${a.service ? 'service (vehicles then duration)' : a.vehiclesFirst ? 'vehicles then distance' : 'distance'}${a.stallIterations ? `, stall ${a.stallIterations}` : ''}, ${a.maxIterations ? `${a.maxIterations} iterations` : `time limit ${a.timeLimitMs} ${a.cpuClock ? 'CPU ms' : 'ms'}`}, ${seeds}${a.workers > 1 ? `, ${a.workers} worker processes` : ''}`,
    );
    const columns = [
      'inst',
      'ok',
      'veh',
      'distance',
      'trunc',
      'opt',
      'gap%',
      'bksV',
      'bksDist',
      'hgap%',
      'ms',
      'iters',
    ];
    console.log(pad(this.a.seeds > 1 ? [...columns, 'seed'] : columns, this.widths));
  }

  row(r: RunResult): void {
    this.results.push(r);
    const b = this.bks.get(r.instance);
    console.log(
      pad(
        [
          r.instance,
          r.feasible ? 'yes' : 'NO',
          r.vehicles,
          fixed(r.distance, 2),
          fixed(r.truncated, 1),
          fixed(b?.distanceOnly, 1),
          fixed(r.gap, 2),
          fixed(b?.vehicles, 0),
          fixed(b?.distance, 2),
          fixed(this.hgap(r), 2),
          r.ms.toFixed(0),
          r.iterations,
          ...(this.a.seeds > 1 ? [r.seed] : []),
        ],
        this.widths,
      ) + (r.feasible ? '' : `  ${r.problem ?? ''}`),
    );
  }

  /** Unrounded total against the hierarchical best-known distance. */
  private hgap(r: RunResult): number {
    const b = this.bks.get(r.instance);
    return b && r.distance !== null ? (100 * (r.distance - b.distance)) / b.distance : NaN;
  }

  summary(): void {
    console.log();
    const sw = [6, 5, 8, 9, 10, 6, 6, 8, 10, 9];
    console.log(
      pad(
        ['class', 'n', 'feasible', 'mean gap%', 'worst gap%', 'veh', 'bksV', 'at bksV', 'mean hgap%', 'median ms'],
        sw,
      ),
    );
    const line = (label: string, rs: RunResult[]) => {
      const ok = rs.filter((r) => r.feasible);
      const bksV = rs.map((r) => this.bks.get(r.instance)?.vehicles ?? NaN);
      const known = bksV.every(Number.isFinite);
      console.log(
        pad(
          [
            label,
            rs.length,
            ok.length,
            mean(ok.map((r) => r.gap ?? NaN)).toFixed(2),
            Math.max(...ok.map((r) => r.gap ?? NaN)).toFixed(2),
            rs.reduce((s, r) => s + r.vehicles, 0),
            known ? bksV.reduce((s, v) => s + v, 0) : '-',
            known ? rs.filter((r, i) => r.feasible && r.vehicles <= bksV[i]).length : '-',
            known ? mean(ok.map((r) => this.hgap(r))).toFixed(2) : '-',
            median(rs.map((r) => r.ms)).toFixed(0),
          ],
          sw,
        ),
      );
    };
    for (const cls of ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2']) {
      const rs = this.results.filter((r) => solomonClass(r.instance) === cls);
      if (rs.length > 0) line(cls, rs);
    }
    line('all', this.results);
    if (this.a.seeds < 2) return;
    // the spread that seeds alone give: each seed's mean over the instances
    console.log();
    console.log(pad(['seed', 'n', 'feasible', 'mean gap%'], sw));
    const perSeed: number[] = [];
    for (let k = 0; k < this.a.seeds; k++) {
      const seed = this.a.seed + k;
      const rs = this.results.filter((r) => r.seed === seed);
      const ok = rs.filter((r) => r.feasible);
      perSeed.push(mean(ok.map((r) => r.gap ?? NaN)));
      console.log(pad([seed, rs.length, ok.length, perSeed[k].toFixed(2)], sw));
    }
    // the t-based interval of the comparison report (bench:compare): how far another run of these seeds may land
    const { mean: m, lo, hi } = meanCI(perSeed);
    console.log(
      `over the seeds: mean ${m.toFixed(3)} % (95 % interval ${lo!.toFixed(3)}–${hi!.toFixed(3)} %), least ${Math.min(...perSeed).toFixed(3)} %, most ${Math.max(...perSeed).toFixed(3)} %`,
    );
  }
}
