/**
 * TSPLIB benchmark of solver builds.
 *
 *   npm run --silent bench:solver -- --tsplib DIR [--time-limit-ms N] [--wasm FILE ...]
 *        [--json] [--seed S] [--seeds K] [--max-iterations N] [--stall N] [--cpu-clock] [--native]
 *
 * Each instance is a closed tour from its first node (EUC_2D, nint). Per build,
 * per instance: length, gap % to the optimum, ms, the time at which the final
 * route was first reached, kicks (iterations); then the mean/max gap, the
 * optimal count and the operator counters (tried, improving, applied) summed
 * over the instances. `--seeds K` runs seeds S..S+K-1 and adds the mean/min/max
 * over seeds of the mean gap, the worst gap and the optimal count per seed.
 * Builds of ABI version 1 (older modules) report no counters or final times.
 *
 * --json: one line per instance, build and seed:
 *   {"instance","n","order","ms","length","build","seed","gap","iterations",
 *    "finalIteration","msToFinal","operators":{name:[tried,improving,applied]}}
 *   (order: 0-based node indices; fields after "length" are additions).
 * --max-iterations N with --time-limit-ms 0: fixed work, deterministic; with --native
 *   the native Rust bench (cargo run --release --bin bench) runs the same work and the
 *   WASM/native time ratio and the count of identical routes are printed.
 * --stall N: stop after N kicks without a new best route; by default the search runs to
 *   the budget (or --max-iterations), so the figures are quality at a budget; --stall 0
 *   uses the solver's own convergence stop (what the service does). "final ms" is when
 *   the final route was first reached either way.
 * --cpu-clock: the module's clock counts this process's CPU time (process.cpuUsage)
 *   instead of wall time, so time limits and times are comparable on a busy machine.
 *
 * Fleets: `--solomon DIR` runs the Solomon VRPTW bench of the fleet solver instead
 * (scripts/lib/solomon-bench.ts, its own options and output); `--fleet-day STOPS:VANS[:SEED]
 * [--time-limit-ms N] [--stall N|service]` plans a synthetic day (scripts/lib/fleet-day.ts: time, peak memory);
 * `--lilim DIR` runs the Li & Lim pickup-and-delivery bench (scripts/lib/lilim-bench.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { OPERATOR_NAMES } from '../src/solver/abi.js';
import { DEFAULT_WASM_PATH } from '../src/solver/load.js';
import { loadBenchSolver } from './lib/bench-solver-load.js';
import type { OperatorName, SolveReport } from '../src/solver/types.js';
import { runFleetDay } from './lib/fleet-day.js';
import { ArgReader } from './lib/cli-args.js';
import { parseSolomonArgs, runSolomonBench } from './lib/solomon-bench.js';
import { parseLilimArgs, runLilimBench } from './lib/lilim-bench.js';
import { closedTourProblem, loadTsplibDir, tourFromOrder, tourLength } from './lib/tsplib.js';

interface Args {
  tsplib: string;
  timeLimitMs: number;
  wasm: string[];
  json: boolean;
  seed: number;
  seeds: number;
  maxIterations: number;
  stall: number;
  native: boolean;
  cpuClock: boolean;
}

const USAGE =
  'usage: bench:solver -- --tsplib DIR [--time-limit-ms N] [--wasm FILE ...] [--json] [--seed S] [--seeds K] [--max-iterations N] [--stall N] [--cpu-clock] [--native]\n   or: bench:solver -- --solomon DIR ... (fleets; --solomon DIR --help for its options)\n   or: bench:solver -- --lilim DIR ... (pickups and deliveries; --lilim DIR --help for its options)\n   or: bench:solver -- --fleet-day STOPS:VANS[:SEED] [--time-limit-ms N] [--stall N|service]';

function parseArgs(argv: string[]): Args {
  // --stall default: none, the budget decides (quality at a budget); --stall 0 = the solver's convergence stop
  const a: Args = {
    tsplib: 'data/tsplib',
    timeLimitMs: 100,
    wasm: [],
    json: false,
    seed: 1,
    seeds: 1,
    maxIterations: 0,
    stall: 0xffffffff,
    native: false,
    cpuClock: false,
  };
  const args = new ArgReader(argv, fail);
  for (let k = args.next(); k !== undefined; k = args.next()) {
    switch (k) {
      case '--tsplib':
        a.tsplib = args.value();
        break;
      case '--time-limit-ms':
        a.timeLimitMs = args.number();
        break;
      case '--wasm':
        a.wasm.push(args.file());
        break;
      case '--json':
        a.json = true;
        break;
      case '--seed':
        a.seed = args.integer();
        break;
      case '--seeds':
        a.seeds = args.integer();
        if (a.seeds < 1) fail('--seeds needs an integer >= 1');
        break;
      case '--max-iterations':
        a.maxIterations = args.integer();
        break;
      case '--stall':
        a.stall = args.integer();
        break;
      case '--native':
        a.native = true;
        break;
      case '--cpu-clock':
        a.cpuClock = true;
        break;
      case '-h':
      case '--help':
        console.log(USAGE);
        process.exit(0);
      default:
        fail(`unknown argument ${k}\n${USAGE}`);
    }
  }
  if (a.wasm.length === 0) a.wasm.push(DEFAULT_WASM_PATH);
  return a;
}

function fail(msg: string): never {
  console.error(`bench-solver: ${msg}`);
  process.exit(2);
}

interface Row {
  instance: string;
  n: number;
  seed: number;
  optimum?: number;
  length: number;
  gap?: number;
  ms: number;
  iterations: number;
  order: number[];
  report?: SolveReport;
}

if (process.argv.includes('--fleet-day')) {
  const argv = process.argv.slice(2);
  const at = (k: string) => argv[argv.indexOf(k) + 1];
  const limit = argv.includes('--time-limit-ms') ? Number(at('--time-limit-ms')) : 10_000;
  if (!Number.isFinite(limit) || limit <= 0) fail('--time-limit-ms needs a number > 0');
  const stall = argv.includes('--stall') ? (at('--stall') === 'service' ? 'service' : Number(at('--stall'))) : 0;
  if (stall !== 'service' && !(Number.isInteger(stall) && stall >= 0))
    fail('--stall needs an integer >= 0 or "service"');
  runFleetDay(at('--fleet-day') ?? '', limit, argv.includes('--wasm') ? at('--wasm') : undefined, fail, stall);
  process.exit(0);
}
if (process.argv.includes('--lilim')) {
  runLilimBench(parseLilimArgs(process.argv.slice(2), fail), fail);
  process.exit(0);
}
if (process.argv.includes('--solomon')) {
  await runSolomonBench(parseSolomonArgs(process.argv.slice(2), fail), fail);
  process.exit(0);
}
const args = parseArgs(process.argv.slice(2));
let loaded: ReturnType<typeof loadTsplibDir>;
try {
  loaded = loadTsplibDir(args.tsplib);
} catch (err) {
  fail(`cannot read ${args.tsplib}: ${(err as Error).message}`);
}
const { instances, optima } = loaded;
if (instances.length === 0) fail(`no .tsp files in ${args.tsplib}`);
const seeds = Array.from({ length: args.seeds }, (_, k) => args.seed + k);
const tty = process.stderr.isTTY && !args.json;
const total = instances.length * args.wasm.length * seeds.length;
let done = 0;
function progress(label: string) {
  if (!tty) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label.padEnd(12)}`);
}

function round(x: number, d = 2) {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

/** rows[build][seed index][instance index] */
const results: Row[][][] = [];
for (const wasm of args.wasm) {
  const solver = loadBenchSolver(resolve(wasm), args.cpuClock, fail);
  const bySeed: Row[][] = [];
  for (const seed of seeds) {
    const rows: Row[] = [];
    for (const inst of instances) {
      progress(inst.name);
      const problem = closedTourProblem(inst);
      const r = solver.solve(problem, {
        seed,
        timeLimitMs: args.timeLimitMs,
        maxIterations: args.maxIterations,
        stallIterations: args.stall,
        report: true,
      });
      const tour = tourFromOrder(r.order);
      const length = tourLength(inst, tour);
      if (length !== r.durationS) fail(`${inst.name}: reported duration ${r.durationS} != tour length ${length}`);
      if (new Set(tour).size !== inst.coords.length) fail(`${inst.name}: order is not a permutation`);
      const optimum = optima[inst.name];
      const gap = optimum ? (100 * (length - optimum)) / optimum : undefined;
      const row: Row = {
        instance: inst.name,
        n: inst.coords.length,
        seed,
        optimum,
        length,
        gap,
        ms: r.solveMs,
        iterations: r.iterations,
        order: tour,
        report: r.report,
      };
      rows.push(row);
      if (args.json) {
        const line: Record<string, unknown> = {
          instance: inst.name,
          n: row.n,
          order: tour,
          ms: round(r.solveMs),
          length,
          build: wasm,
          seed,
          gap: gap === undefined ? null : round(gap, 6),
          iterations: r.iterations,
        };
        if (r.report) {
          line.finalIteration = r.report.finalIteration;
          line.msToFinal = round(r.report.msToFinal);
          line.operators = Object.fromEntries(
            OPERATOR_NAMES.map((k) => {
              const c = r.report!.operators[k];
              return [k, [c.tried, c.improving, c.applied]];
            }),
          );
        }
        console.log(JSON.stringify(line));
      }
      done++;
    }
    bySeed.push(rows);
  }
  results.push(bySeed);
}
if (tty) process.stderr.write('\r' + ' '.repeat(60) + '\r');

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const fmt = (x: number | undefined, d: number) => (x === undefined ? '-' : x.toFixed(d));

interface SeedSummary {
  meanGap: number;
  maxGap: number;
  optimal: number;
  withOptimum: number;
  meanMs: number;
}
function summarize(rows: Row[]): SeedSummary {
  const gaps = rows.flatMap((r) => (r.gap === undefined ? [] : [r.gap]));
  return {
    meanGap: mean(gaps),
    maxGap: gaps.reduce((s, g) => Math.max(s, g), 0),
    optimal: gaps.filter((g) => g === 0).length,
    withOptimum: gaps.length,
    meanMs: mean(rows.map((r) => r.ms)),
  };
}

if (!args.json) {
  const clock = args.cpuClock ? 'CPU ms' : 'ms';
  console.log(
    `time limit ${args.timeLimitMs} ${clock}${args.maxIterations ? `, max iterations ${args.maxIterations}` : ''}, ${args.stall === 0 ? 'convergence stop: solver default' : args.stall === 0xffffffff ? 'no convergence stop' : `stall ${args.stall}`}, seed${seeds.length > 1 ? `s ${seeds[0]}..${seeds.at(-1)}` : ` ${args.seed}`}`,
  );
  const line = (cells: string[], widths: number[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' ');
  results.forEach((bySeed, b) => {
    console.log(`\nbuild #${b + 1}: ${args.wasm[b]}`);
    const multi = seeds.length > 1;
    const widths = [10, 4, 8, 9, 9, 9, 9, 8, 7];
    console.log(
      line(
        multi
          ? ['instance', 'n', 'optimum', 'mean gap%', 'max gap%', 'mean ms', 'final ms', 'kicks', 'optimal']
          : ['instance', 'n', 'optimum', 'length', 'gap%', 'ms', 'final ms', 'kicks', 'final@'],
        widths,
      ),
    );
    instances.forEach((inst, i) => {
      const rs = bySeed.map((rows) => rows[i]);
      const r0 = rs[0];
      const gaps = rs.flatMap((r) => (r.gap === undefined ? [] : [r.gap]));
      const finals = rs.flatMap((r) => (r.report ? [r.report.msToFinal] : []));
      console.log(
        line(
          multi
            ? [
                inst.name,
                String(r0.n),
                r0.optimum === undefined ? '-' : String(r0.optimum),
                gaps.length ? mean(gaps).toFixed(3) : '-',
                gaps.length ? Math.max(...gaps).toFixed(3) : '-',
                mean(rs.map((r) => r.ms)).toFixed(1),
                finals.length ? mean(finals).toFixed(1) : '-',
                mean(rs.map((r) => r.iterations)).toFixed(0),
                gaps.length ? `${gaps.filter((g) => g === 0).length}/${gaps.length}` : '-',
              ]
            : [
                inst.name,
                String(r0.n),
                r0.optimum === undefined ? '-' : String(r0.optimum),
                String(r0.length),
                fmt(r0.gap, 3),
                r0.ms.toFixed(1),
                fmt(r0.report?.msToFinal, 1),
                String(r0.iterations),
                r0.report ? String(r0.report.finalIteration) : '-',
              ],
          widths,
        ),
      );
    });
    const sums = bySeed.map(summarize);
    for (const [k, s] of sums.entries()) {
      console.log(
        `seed ${seeds[k]}: mean gap ${s.meanGap.toFixed(4)}%  max gap ${s.maxGap.toFixed(3)}%  optimal ${s.optimal}/${s.withOptimum}  mean ms ${s.meanMs.toFixed(1)}`,
      );
    }
    if (multi) {
      const means = sums.map((s) => s.meanGap);
      console.log(
        `${seeds.length} seeds: mean gap mean ${mean(means).toFixed(4)}%  min ${Math.min(...means).toFixed(4)}%  max ${Math.max(...means).toFixed(4)}%;` +
          ` max gap mean ${mean(sums.map((s) => s.maxGap)).toFixed(3)}%  max ${Math.max(...sums.map((s) => s.maxGap)).toFixed(3)}%;` +
          ` optimal mean ${mean(sums.map((s) => s.optimal)).toFixed(1)}  min ${Math.min(...sums.map((s) => s.optimal))}  max ${Math.max(...sums.map((s) => s.optimal))} of ${sums[0].withOptimum}`,
      );
    }
    const reported = bySeed.flat().filter((r) => r.report);
    if (reported.length > 0) {
      console.log('operator          tried    improving      applied   (summed over instances and seeds)');
      for (const name of OPERATOR_NAMES) {
        const sum = (f: (c: { tried: number; improving: number; applied: number }) => number) =>
          reported.reduce((s, r) => s + f(r.report!.operators[name as OperatorName]), 0);
        console.log(
          `${name.padEnd(14)} ${String(sum((c) => c.tried)).padStart(10)} ${String(sum((c) => c.improving)).padStart(12)} ${String(sum((c) => c.applied)).padStart(12)}`,
        );
      }
    } else {
      console.log('(module of ABI version 1: no operator counters)');
    }
  });
}

if (args.native) {
  if (args.timeLimitMs !== 0 || args.maxIterations === 0)
    fail('--native needs --time-limit-ms 0 and --max-iterations N');
  const crate = join(dirname(fileURLToPath(import.meta.url)), '..', 'solver-rs');
  const home = process.env.HOME ?? '';
  const cargo = existsSync(join(home, '.cargo/bin/cargo')) ? join(home, '.cargo/bin/cargo') : 'cargo';
  // a target dir per cargo version: toolchains must not share build artefacts
  const version = spawnSync(cargo, ['--version'], { encoding: 'utf8' })
    .stdout.trim()
    .replace(/[^\w.]+/g, '-');
  const env = { ...process.env, CARGO_TARGET_DIR: join(crate, 'target', `bench-${version}`) };
  const rows = results[0];
  let wasmTotal = 0;
  let nativeTotal = 0;
  let same = 0;
  let count = 0;
  for (const [k, seed] of seeds.entries()) {
    const out = spawnSync(
      cargo,
      [
        'run',
        '--quiet',
        '--release',
        '--bin',
        'bench',
        '--',
        resolve(args.tsplib),
        String(args.maxIterations),
        '--seed',
        String(seed),
        '--json',
        '--stall',
        String(args.stall),
        ...(args.cpuClock ? ['--cpu-clock'] : []),
      ],
      { cwd: crate, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 },
    );
    if (out.status !== 0) fail('native bench failed');
    const native = new Map<string, { ms: number; order: number[] }>();
    for (const l of out.stdout.split('\n')) {
      if (!l.startsWith('{')) continue;
      const j = JSON.parse(l) as { instance: string; ms: number; order: number[] };
      native.set(j.instance, j);
    }
    for (const r of rows[k]) {
      const nat = native.get(r.instance);
      if (!nat) continue;
      count++;
      wasmTotal += r.ms;
      nativeTotal += nat.ms;
      if (nat.order.length === r.order.length && nat.order.every((x, i) => x === r.order[i])) same++;
    }
  }
  const summary = {
    wasmMs: round(wasmTotal, 1),
    nativeMs: round(nativeTotal, 1),
    ratio: round(wasmTotal / nativeTotal, 3),
    sameRoute: `${same}/${count}`,
  };
  if (args.json) console.log(JSON.stringify({ native: summary }));
  else
    console.log(
      `native: total ms ${summary.nativeMs}, wasm total ms ${summary.wasmMs}, WASM/native ratio ${summary.ratio}, identical routes ${summary.sameRoute}`,
    );
}
