/**
 * One solve of the comparison, run inside a worker thread (solve-worker.mjs):
 * a WASM build solves in the thread on a fresh module instance; the native
 * build and external solvers run as a child process of the thread. The route
 * is scored with our evaluator and checked against the cost the build reports.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { legacyDeadlines } from '../../../src/solver/abi.ts';
import { compileSolverModule } from '../../../src/solver/load.ts';
import { routeCost } from '../route-cost.ts';
import { closedTourProblem } from '../tsplib.ts';
import type { BuildSpec } from './builds.ts';
import { EXTERNAL_SOLVERS } from './external.ts';
import type { BenchInstance, RawResult, SolveOutcome } from './types.ts';
import { readEvents, wasmSolve } from './wasm-build.ts';

export interface SolveTask {
  build: BuildSpec;
  instance: BenchInstance;
  seed: number;
  budgetMs: number;
}

const modules = new Map<string, WebAssembly.Module>();

/**
 * V8 runs a new WebAssembly module on baseline code and tiers hot functions up
 * while it runs: the first solves of a build in a thread would be slower than
 * the rest. Each thread therefore runs every build for this long on a fixed
 * problem before its first measured solve.
 */
export const WARM_UP_MS = 250;

function warmUpProblem() {
  // 120 pseudo-random cities (mulberry32, fixed seed), closed tour
  let a = 12345;
  const r = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return closedTourProblem({
    name: 'warm-up',
    coords: Array.from({ length: 120 }, () => [Math.round(r() * 1000), Math.round(r() * 1000)] as [number, number]),
  });
}

export function runSolveTask(t: SolveTask): RawResult {
  const base = {
    build: t.build.label,
    set: t.instance.set,
    instance: t.instance.name,
    n: t.instance.n,
    seed: t.seed,
    budgetMs: t.budgetMs,
  };
  try {
    const out = solveWith(t);
    const cost = routeCost(t.instance.problem, out.order);
    if (out.reported && (out.reported.latenessS !== cost.latenessS || out.reported.durationS !== cost.durationS)) {
      throw new Error(
        `build reports lateness ${out.reported.latenessS} s, duration ${out.reported.durationS} s; the route's are ${cost.latenessS} s, ${cost.durationS} s`,
      );
    }
    return {
      ...base,
      status: 'ok',
      latenessS: cost.latenessS,
      durationS: cost.durationS,
      elapsedMs: round(out.elapsedMs),
      timeToFinalMs: out.timeToFinalMs === null ? null : round(out.timeToFinalMs),
      events: out.events === null ? null : out.events.map((e) => [round(e.ms), e.latenessS, e.durationS]),
      ...(out.iterations !== undefined ? { iterations: out.iterations } : {}),
      order: out.order,
    };
  } catch (err) {
    return { ...base, status: 'error', error: (err as Error)?.message ?? String(err) };
  }
}

function solveWith(t: SolveTask): SolveOutcome {
  const b = t.build;
  const o = { seed: t.seed, budgetMs: t.budgetMs };
  if (b.kind === 'wasm') {
    let module = modules.get(b.path);
    if (!module) {
      module = compileSolverModule(b.path);
      modules.set(b.path, module);
      wasmSolve(module, b.abiVersion, warmUpProblem(), { seed: 1, budgetMs: WARM_UP_MS });
    }
    return wasmSolve(module, b.abiVersion, t.instance.problem, o);
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-compare-'));
  try {
    if (b.kind === 'native') return solveNative(b.path, t, dir);
    return EXTERNAL_SOLVERS[b.solver].solve(b.path, t.instance, o, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function solveNative(binary: string, t: SolveTask, dir: string): SolveOutcome {
  const p = t.instance.problem;
  const file = join(dir, 'problem.txt');
  writeFileSync(
    file,
    [
      `${p.size} ${p.hasEnd ? 1 : 0} ${t.seed} ${t.budgetMs}`,
      Array.from(p.durations).join(' '),
      Array.from(p.serviceS).join(' '),
      Array.from(legacyDeadlines(p.deadlineS)).join(' '),
      '',
    ].join('\n'),
  );
  const t0 = performance.now();
  const r = spawnSync(binary, [file], { encoding: 'utf8', timeout: 5 * t.budgetMs + 30_000, maxBuffer: 64 << 20 });
  const processMs = performance.now() - t0;
  if (r.error) throw new Error(`native runner: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`native runner exited with ${r.status ?? r.signal}: ${r.stderr.trim()}`);
  const out = JSON.parse(r.stdout) as {
    status: number;
    order: number[];
    latenessS: number;
    durationS: number;
    iterations: number;
    ms: number;
    /** optional, once the crate reports them: [ms, lateness, duration] triples and the time the final route was reached */
    events?: unknown;
    timeToFinalMs?: number;
  };
  if (out.status !== 0) throw new Error(`native solver rejected the problem: status ${out.status}`);
  const events = readEvents(out.events);
  return {
    order: out.order,
    reported: { latenessS: out.latenessS, durationS: out.durationS },
    // the solve itself (comparable with the WASM builds), not the process start-up
    elapsedMs: Number.isFinite(out.ms) ? out.ms : processMs,
    timeToFinalMs:
      typeof out.timeToFinalMs === 'number'
        ? out.timeToFinalMs
        : events && events.length > 0
          ? events[events.length - 1].ms
          : null,
    events,
    iterations: out.iterations,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
