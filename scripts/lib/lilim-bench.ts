/**
 * The Li & Lim PDPTW bench of the WebAssembly fleet solver (`bench:solver -- --lilim DIR`):
 *
 *   npm run --silent bench:solver -- --lilim DIR [--time-limit-ms N] [--objective distance|vehicles] [--json]
 *        [--seed S] [--max-iterations N] [--only LC1,LR2,lrc101] [--cpu-clock] [--wasm FILE]
 *
 * Each instance's fleet (its vehicles and capacity), hard windows, the depot's closing time, and its
 * pickup-and-delivery pairs as shipments; Euclidean distances, fixed point inside the solver (scripts/lib/lilim.ts).
 * Each plan is checked in unrounded doubles by the shared plan checker (precedence, same vehicle, the load at every
 * point, windows, the route count); `gap%` = unrounded total vs bks.csv's hierarchical best-known distance (no
 * distance-only reference is published for this set: with the distance objective a plan using more vehicles may be
 * shorter, a negative gap). `--objective vehicles`: fewest vehicles, then distance (the hierarchical convention of
 * the best-known values). A per-class summary follows.
 * --json: one line per instance {"instance","routes","distance","vehicles","ms"} (routes: task numbers in visiting
 * order, depot excluded; distance: null when the plan is infeasible), then "feasible", "gap", "bksVehicles",
 * "bksDistance", "iterations", "bestIteration" as additions.
 */
import { loadBenchSolver } from './bench-solver-load.js';
import { fleetBenchDefaults, readCommonFleetArg, type FleetBenchArgs } from './fleet-bench-args.js';
import { SolverError } from '../../src/solver/errors.js';
import { ArgReader } from './cli-args.js';
import { warmUp } from './warm-up.js';
import { customerRoutes } from './solomon.js';
import { checkLilim, lilimClass, lilimProblem, loadLilimDir, type LilimInstance } from './lilim.js';

export type LilimArgs = FleetBenchArgs;

export const LILIM_USAGE =
  'usage: bench:solver -- --lilim DIR [--time-limit-ms N] [--objective distance|vehicles] [--json] [--seed S] [--max-iterations N] [--only LC1,LR2,lrc101] [--cpu-clock] [--wasm FILE]';

export function parseLilimArgs(argv: string[], fail: (msg: string) => never): LilimArgs {
  const a: LilimArgs = fleetBenchDefaults();
  const args = new ArgReader(argv, fail);
  for (let k = args.next(); k !== undefined; k = args.next()) {
    switch (k) {
      case '--lilim':
        a.dir = args.value();
        break;
      case '--objective': {
        const o = args.value();
        if (o !== 'distance' && o !== 'vehicles') fail('--objective is distance or vehicles');
        a.vehiclesFirst = o === 'vehicles';
        break;
      }
      case '-h':
      case '--help':
        console.log(LILIM_USAGE);
        process.exit(0);
      default:
        if (!readCommonFleetArg(k, args, a)) fail(`unknown argument ${k}\n${LILIM_USAGE}`);
    }
  }
  if (a.timeLimitMs === 0 && a.maxIterations === 0) fail('give --time-limit-ms N or --max-iterations N');
  return a;
}

interface Row {
  cls: string;
  feasible: boolean;
  gap: number;
  vehicles: number;
  bksVehicles: number;
  ms: number;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

export function runLilimBench(a: LilimArgs, fail: (msg: string) => never): void {
  let loaded: ReturnType<typeof loadLilimDir>;
  try {
    loaded = loadLilimDir(a.dir);
  } catch (err) {
    fail(`cannot read ${a.dir}: ${(err as Error).message}`);
  }
  const chosen = (inst: LilimInstance) =>
    a.only.length === 0 || a.only.includes(inst.name.toUpperCase()) || a.only.includes(lilimClass(inst.name));
  const instances = loaded.instances.filter(chosen);
  if (instances.length === 0) fail(`no Li & Lim instance (*.txt) in ${a.dir}`);
  const solver = loadBenchSolver(a.wasm, a.cpuClock, fail);
  const rows: Row[] = [];
  const pad = (cells: Array<string | number>, widths: number[]) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join(' ');
  const widths = [7, 4, 4, 10, 5, 10, 7, 7, 7];
  if (!a.json) {
    console.log(
      `WASM fleet solver on Li & Lim, objective ${a.vehiclesFirst ? 'vehicles then distance' : 'distance'}, ${a.maxIterations ? `${a.maxIterations} iterations` : `time limit ${a.timeLimitMs} ${a.cpuClock ? 'CPU ms' : 'ms'}`}, seed ${a.seed}`,
    );
    console.log(pad(['inst', 'ok', 'veh', 'distance', 'bksV', 'bksDist', 'gap%', 'ms', 'iters'], widths));
  }
  warmUp(solver, lilimProblem(instances[0]!, a.vehiclesFirst));
  for (const inst of instances) {
    let r: ReturnType<typeof solver.solveFleet>;
    try {
      r = solver.solveFleet(lilimProblem(inst, a.vehiclesFirst), {
        seed: a.seed,
        timeLimitMs: a.maxIterations ? 0 : a.timeLimitMs,
        maxIterations: a.maxIterations,
      });
    } catch (err) {
      if (!(err instanceof SolverError)) throw err;
      fail(`${inst.name}: this solver build refuses it: ${err.message}${err.statusName ? ` (${err.statusName})` : ''}`);
    }
    const routes = customerRoutes(r.routes);
    let distance = NaN;
    let problem = '';
    if (r.unassigned.length > 0) problem = `${r.unassigned.length} tasks unassigned`;
    else {
      try {
        distance = checkLilim(inst, routes);
      } catch (err) {
        problem = (err as Error).message;
      }
    }
    const b = loaded.bks.get(inst.name);
    const feasible = problem === '';
    const gap = b ? (100 * (distance - b.distance)) / b.distance : NaN;
    rows.push({
      cls: lilimClass(inst.name),
      feasible,
      gap,
      vehicles: routes.length,
      bksVehicles: b?.vehicles ?? NaN,
      ms: r.solveMs,
    });
    if (a.json) {
      console.log(
        JSON.stringify({
          instance: inst.name,
          routes,
          distance: feasible ? distance : null,
          vehicles: routes.length,
          ms: Math.round(r.solveMs * 10) / 10,
          feasible,
          gap: feasible && b ? Math.round(gap * 1e4) / 1e4 : null,
          bksVehicles: b?.vehicles ?? null,
          bksDistance: b?.distance ?? null,
          iterations: r.iterations,
          bestIteration: r.bestIteration,
        }),
      );
    } else {
      const f = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '-');
      console.log(
        pad(
          [
            inst.name,
            feasible ? 'yes' : 'NO',
            routes.length,
            f(distance, 2),
            f(b?.vehicles ?? NaN, 0),
            f(b?.distance ?? NaN, 2),
            f(gap, 2),
            r.solveMs.toFixed(0),
            r.iterations,
          ],
          widths,
        ) + (feasible ? '' : `  ${problem}`),
      );
    }
  }
  if (a.json) return;
  console.log();
  const sw = [6, 4, 8, 9, 10, 6, 6, 8, 8];
  console.log(pad(['class', 'n', 'feasible', 'mean gap%', 'worst gap%', 'veh', 'bksV', 'at bksV', 'mean ms'], sw));
  const summary = (label: string, rs: Row[]) => {
    const ok = rs.filter((r) => r.feasible);
    console.log(
      pad(
        [
          label,
          rs.length,
          ok.length,
          mean(ok.map((r) => r.gap)).toFixed(2),
          Math.max(...ok.map((r) => r.gap)).toFixed(2),
          rs.reduce((s, r) => s + r.vehicles, 0),
          rs.reduce((s, r) => s + r.bksVehicles, 0),
          ok.filter((r) => r.vehicles <= r.bksVehicles).length,
          mean(rs.map((r) => r.ms)).toFixed(0),
        ],
        sw,
      ),
    );
  };
  for (const cls of ['LC1', 'LC2', 'LR1', 'LR2', 'LRC1', 'LRC2']) {
    const rs = rows.filter((r) => r.cls === cls);
    if (rs.length > 0) summary(cls, rs);
  }
  summary('all', rows);
}
