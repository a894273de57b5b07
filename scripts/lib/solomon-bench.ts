/**
 * The Solomon VRPTW bench of the WebAssembly fleet solver (`bench:solver -- --solomon DIR`):
 *
 *   npm run --silent bench:solver -- --solomon DIR [--time-limit-ms N] [--objective distance|vehicles|service]
 *        [--json] [--seed S] [--max-iterations N] [--stall N|service] [--only C1,R2,RC101] [--cpu-clock] [--wasm FILE]
 *        [--size 200|400|600|800|1000] [--sample K]
 *
 * DIR may also be data/homberger (Gehring–Homberger, 200–1000 customers): its bks.csv holds the 12th DIMACS
 * challenge's distance-only best-known values, so the plan is solved and checked on arcs truncated to one decimal
 * (travel time = distance) and `gap%` is the truncated total vs those values. `--size N` keeps the instances of
 * N customers, `--sample K` a stratified sample of K of them (the same per class, evenly spaced: repeatable).
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
 * "truncated", "gap", "iterations", "bestIteration", "duration" (solver units, 1e-5) as additions.
 */
import { SERVICE_OBJECTIVE, serviceStallIterations } from '../../src/solver/fleet-types.js';
import { loadSolver } from '../../src/solver/load.js';
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
  type SolomonInstance,
} from './solomon.js';
import { ArgReader } from './cli-args.js';
import { warmUp } from './warm-up.js';

export interface SolomonArgs extends FleetBenchArgs {
  service: boolean;
  stallIterations: number;
  /** Customers per instance to keep (0: all). */
  size: number;
  /** A stratified sample of this many instances (0: all). */
  sample: number;
}

export const SOLOMON_USAGE =
  'usage: bench:solver -- --solomon DIR [--time-limit-ms N] [--objective distance|vehicles|service] [--json] [--seed S] [--max-iterations N] [--stall N|service] [--only C1,R2,RC101] [--cpu-clock] [--wasm FILE] [--size N] [--sample K]';

export function parseSolomonArgs(argv: string[], fail: (msg: string) => never): SolomonArgs {
  const a: SolomonArgs = { ...fleetBenchDefaults(), service: false, stallIterations: 0, size: 0, sample: 0 };
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

interface Row {
  name: string;
  cls: string;
  feasible: boolean;
  gap: number;
  hgap: number;
  vehicles: number;
  bksVehicles: number;
  ms: number;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => {
  const s = [...xs].sort((p, q) => p - q);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)];
};

export function runSolomonBench(a: SolomonArgs, fail: (msg: string) => never): void {
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
  const { convention } = loaded;
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const solver = loadSolver(a.wasm, a.cpuClock ? { clock: cpu } : {});
  const rows: Row[] = [];
  const pad = (cells: Array<string | number>, widths: number[]) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
  const widths = [6, 4, 4, 11, 10, 9, 8, 5, 9, 7, 7, 9];
  if (!a.json) {
    if (convention === 'dimacs')
      console.log(
        'DIMACS convention: arcs truncated to one decimal (travel time = distance), gaps vs the distance-only best-known values',
      );
    console.log(
      `WASM fleet solver, objective ${a.service ? 'service (vehicles then duration)' : a.vehiclesFirst ? 'vehicles then distance' : 'distance'}${a.stallIterations ? `, stall ${a.stallIterations}` : ''}, ${a.maxIterations ? `${a.maxIterations} iterations` : `time limit ${a.timeLimitMs} ${a.cpuClock ? 'CPU ms' : 'ms'}`}, seed ${a.seed}`,
    );
    console.log(
      pad(['inst', 'ok', 'veh', 'distance', 'trunc', 'opt', 'gap%', 'bksV', 'bksDist', 'hgap%', 'ms', 'iters'], widths),
    );
  }
  const problemOf = (inst: SolomonInstance) => {
    const planned = solomonProblem(inst, a.vehiclesFirst, convention);
    if (a.service) planned.objective = SERVICE_OBJECTIVE;
    return planned;
  };
  // the measured solves' objective: the warm-up optimizes the functions they run
  warmUp(solver, problemOf(instances[0]!));
  for (const inst of instances) {
    const planned = problemOf(inst);
    let r: ReturnType<typeof solver.solveFleet>;
    try {
      r = solver.solveFleet(planned, {
        seed: a.seed,
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
    const b = loaded.bks.get(inst.name);
    const gap = b ? (100 * (truncated - b.distanceOnly)) / b.distanceOnly : NaN;
    const hgap = b ? (100 * (distance - b.distance)) / b.distance : NaN;
    const feasible = problem === '';
    rows.push({
      name: inst.name,
      cls: solomonClass(inst.name),
      feasible,
      gap,
      hgap,
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
          truncated: feasible ? truncated : null,
          gap: feasible && b ? Math.round(gap * 1e4) / 1e4 : null,
          iterations: r.iterations,
          bestIteration: r.bestIteration,
          duration: r.cost.duration,
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
            f(truncated, 1),
            f(b?.distanceOnly ?? NaN, 1),
            f(gap, 2),
            f(b?.vehicles ?? NaN, 0),
            f(b?.distance ?? NaN, 2),
            f(hgap, 2),
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
  const sw = [6, 5, 8, 9, 10, 6, 6, 8, 10, 9];
  console.log(
    pad(['class', 'n', 'feasible', 'mean gap%', 'worst gap%', 'veh', 'bksV', 'at bksV', 'mean hgap%', 'median ms'], sw),
  );
  const summary = (label: string, rs: Row[]) => {
    const ok = rs.filter((r) => r.feasible);
    const bksV = rs.reduce((s, r) => s + r.bksVehicles, 0);
    const known = Number.isFinite(bksV);
    console.log(
      pad(
        [
          label,
          rs.length,
          ok.length,
          mean(ok.map((r) => r.gap)).toFixed(2),
          Math.max(...ok.map((r) => r.gap)).toFixed(2),
          rs.reduce((s, r) => s + r.vehicles, 0),
          known ? bksV : '-',
          known ? ok.filter((r) => r.vehicles <= r.bksVehicles).length : '-',
          known ? mean(ok.map((r) => r.hgap)).toFixed(2) : '-',
          median(rs.map((r) => r.ms)).toFixed(0),
        ],
        sw,
      ),
    );
  };
  for (const cls of ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2']) {
    const rs = rows.filter((r) => r.cls === cls);
    if (rs.length > 0) summary(cls, rs);
  }
  summary('all', rows);
}
