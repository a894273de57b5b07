/**
 * TSPLIB benchmark of solver builds.
 *
 *   npm run --silent bench:solver -- --tsplib DIR [--time-limit-ms N] [--wasm FILE ...]
 *        [--json] [--seed S] [--max-iterations N] [--stall N] [--native]
 *
 * Each instance is a closed tour from its first node (EUC_2D, nint). A table per
 * build: instance, n, optimum, length, gap %, ms; then mean/max gap and mean ms.
 * With several --wasm files the builds are shown side by side.
 * --json: one line per instance and build: {"instance","n","order","ms","length","build"}.
 * --max-iterations N with --time-limit-ms 0: fixed work, deterministic; with --native
 *   the native Rust bench (cargo run --release --bin bench) runs the same work and the
 *   WASM/native time ratio is printed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadSolver, DEFAULT_WASM_PATH } from '../src/solver/load.ts';
import { closedTourProblem, loadTsplibDir, tourFromOrder, tourLength } from './lib/tsplib.ts';

interface Args {
  tsplib: string;
  timeLimitMs: number;
  wasm: string[];
  json: boolean;
  seed: number;
  maxIterations: number;
  stall: number;
  native: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { tsplib: 'data/tsplib', timeLimitMs: 100, wasm: [], json: false, seed: 1, maxIterations: 0, stall: 0, native: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${k} needs a value`);
      return v;
    };
    const num = () => {
      const v = Number(val());
      if (!Number.isFinite(v) || v < 0) fail(`${k} needs a number >= 0`);
      return v;
    };
    switch (k) {
      case '--tsplib': a.tsplib = val(); break;
      case '--time-limit-ms': a.timeLimitMs = num(); break;
      case '--wasm': a.wasm.push(val()); break;
      case '--json': a.json = true; break;
      case '--seed': a.seed = num(); break;
      case '--max-iterations': a.maxIterations = num(); break;
      case '--stall': a.stall = num(); break;
      case '--native': a.native = true; break;
      case '-h': case '--help':
        console.log('usage: bench:solver -- --tsplib DIR [--time-limit-ms N] [--wasm FILE ...] [--json] [--seed S] [--max-iterations N] [--stall N] [--native]');
        process.exit(0);
      default: fail(`unknown argument ${k}`);
    }
  }

  if (a.wasm.length === 0) a.wasm.push(DEFAULT_WASM_PATH);
  return a;
}

function fail(msg: string): never {
  console.error(`bench-solver: ${msg}`);
  process.exit(2);
}

interface Row { instance: string; n: number; optimum?: number; length: number; gap?: number; ms: number; order: number[] }

const args = parseArgs(process.argv.slice(2));
const { instances, optima } = loadTsplibDir(args.tsplib);
if (instances.length === 0) fail(`no .tsp files in ${args.tsplib}`);
const tty = process.stderr.isTTY && !args.json;
const total = instances.length * args.wasm.length;
let done = 0;
function progress(label: string) {
  if (!tty) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label.padEnd(12)}`);
}

const results: Row[][] = [];
for (const wasm of args.wasm) {
  const solver = loadSolver(resolve(wasm));
  const rows: Row[] = [];
  for (const inst of instances) {
    progress(inst.name);
    const problem = closedTourProblem(inst);
    const r = solver.solve(problem, {
      seed: args.seed, timeLimitMs: args.timeLimitMs, maxIterations: args.maxIterations,
      stallIterations: args.stall,
    });
    const tour = tourFromOrder(r.order);
    const length = tourLength(inst, tour);
    if (length !== r.durationS) fail(`${inst.name}: reported duration ${r.durationS} != tour length ${length}`);
    if (new Set(tour).size !== inst.coords.length) fail(`${inst.name}: order is not a permutation`);
    const optimum = optima[inst.name];
    const gap = optimum ? (100 * (length - optimum)) / optimum : undefined;
    rows.push({ instance: inst.name, n: inst.coords.length, optimum, length, gap, ms: r.solveMs, order: tour });
    if (args.json) {
      console.log(JSON.stringify({ instance: inst.name, n: inst.coords.length, order: tour, ms: round(r.solveMs), length, build: wasm }));
    }
    done++;
  }
  results.push(rows);
}
if (tty) process.stderr.write('\r' + ' '.repeat(60) + '\r');

function round(x: number, d = 2) {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

if (!args.json) {
  const head = ['instance', 'n', 'optimum'];
  const cols = args.wasm.map((_, b) => (args.wasm.length > 1 ? `#${b + 1} ` : ''));
  const line = (cells: string[], widths: number[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' ');
  const widths = [10, 4, 8, ...cols.flatMap(() => [9, 7, 8])];
  args.wasm.forEach((w, b) => args.wasm.length > 1 && console.log(`#${b + 1} = ${w}`));
  console.log(`time limit ${args.timeLimitMs} ms, seed ${args.seed}${args.maxIterations ? `, max iterations ${args.maxIterations}` : ''}${args.stall ? `, stall ${args.stall}` : ''}`);
  console.log(line([...head, ...cols.flatMap((c) => [`${c}length`, `${c}gap%`, `${c}ms`])], widths));
  instances.forEach((inst, i) => {
    const r0 = results[0][i];
    console.log(line([
      inst.name, String(r0.n), r0.optimum === undefined ? '-' : String(r0.optimum),
      ...results.flatMap((rows) => {
        const r = rows[i];
        return [String(r.length), r.gap === undefined ? '-' : r.gap.toFixed(2), r.ms.toFixed(1)];
      }),
    ], widths));
  });
  results.forEach((rows, b) => {
    const gaps = rows.flatMap((r) => (r.gap === undefined ? [] : [r.gap]));
    const mean = gaps.reduce((s, g) => s + g, 0) / Math.max(1, gaps.length);
    const max = gaps.reduce((s, g) => Math.max(s, g), 0);
    const ms = rows.reduce((s, r) => s + r.ms, 0) / rows.length;
    console.log(`${args.wasm.length > 1 ? `#${b + 1} ` : ''}mean gap ${mean.toFixed(3)}%  max gap ${max.toFixed(3)}%  mean ms ${ms.toFixed(1)}  total ms ${(ms * rows.length).toFixed(0)}`);
  });
}

if (args.native) {
  if (args.timeLimitMs !== 0 || args.maxIterations === 0) fail('--native needs --time-limit-ms 0 and --max-iterations N');
  const crate = join(dirname(fileURLToPath(import.meta.url)), '..', 'solver-rs');
  const cargo = existsSync(join(process.env.HOME ?? '', '.cargo/bin/cargo')) ? join(process.env.HOME ?? '', '.cargo/bin/cargo') : 'cargo';
  // a target dir per cargo version: toolchains must not share build artefacts
  const version = spawnSync(cargo, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/[^\w.]+/g, '-');
  const env = { ...process.env, CARGO_TARGET_DIR: join(crate, 'target', `bench-${version}`) };
  const out = spawnSync(cargo, ['run', '--quiet', '--release', '--bin', 'bench', '--', resolve(args.tsplib), String(args.maxIterations), '--seed', String(args.seed), '--stall', String(args.stall || 4294967295)], { cwd: crate, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (out.status !== 0) fail('native bench failed');
  const nativeMs = new Map<string, { ms: number; length: number }>();
  for (const l of out.stdout.split('\n')) {
    const f = l.trim().split(/\s+/);
    if (f.length >= 6 && instances.some((i) => i.name === f[0])) nativeMs.set(f[0], { length: Number(f[3]), ms: Number(f[5]) });
  }
  const rows = results[0];
  let wasmTotal = 0;
  let nativeTotal = 0;
  let same = 0;
  for (const r of rows) {
    const nat = nativeMs.get(r.instance);
    if (!nat) continue;
    wasmTotal += r.ms;
    nativeTotal += nat.ms;
    if (nat.length === r.length) same++;
  }
  const out2 = { wasmMs: round(wasmTotal, 1), nativeMs: round(nativeTotal, 1), ratio: round(wasmTotal / nativeTotal, 3), sameLength: `${same}/${rows.length}` };
  if (args.json) console.log(JSON.stringify({ native: out2 }));
  else console.log(`native: total ms ${out2.nativeMs}, wasm total ms ${out2.wasmMs}, WASM/native ratio ${out2.ratio}, same tour length ${out2.sameLength}`);
}
