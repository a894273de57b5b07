/**
 * Piscina worker: one WebAssembly instance per thread, created from the module
 * compiled once by the pool (passed in workerData). A trap replaces the
 * instance; errors are returned as values so their codes survive the thread hop.
 * WebAssembly memory only grows: an instance that grew past KEEP_MEMORY_BYTES for a
 * big problem (about 8 MB for 1000 stops, 400 MB for 10,000: one Int32 matrix) is dropped after it (and collected at
 * once: src/solver/collect-garbage.ts), and the next task gets a fresh one, so a
 * flood of big plans leaves no worker holding its peak.
 */
import { workerData, type MessagePort } from 'node:worker_threads';

import { WasmSolver } from './abi.ts';
import { collectGarbage } from './collect-garbage.ts';
import { SolverError } from './errors.ts';
import { solveFleet } from './fleet-abi.ts';
import type { FleetProblem, FleetProgress, FleetResult } from './fleet-types.ts';
import type { RouteTimes, SolveReport } from './types.ts';

export interface SolveTask {
  kind: 'solve';
  durations: Int32Array;
  size: number;
  serviceS: Int32Array;
  deadlineS: Int32Array;
  hasEnd: boolean;
  seed?: number;
  timeLimitMs: number;
  maxIterations?: number;
  stallIterations?: number;
  report?: boolean;
}
export interface TrapTask {
  kind: 'trap';
}
export interface FleetTask {
  kind: 'fleet';
  problem: FleetProblem;
  seed?: number;
  timeLimitMs: number;
  maxIterations?: number;
  stallIterations?: number;
  /** Where the solver's new best plans go (a FleetProgress each; transferred with the task). */
  progress?: MessagePort;
  /** Int32Array over a SharedArrayBuffer: 1 asks the search to end now with its best plan. */
  stopFlag?: Int32Array;
}
export type Task = SolveTask | TrapTask | FleetTask;

export type FleetTaskResult =
  | { ok: true; fleet: FleetResult; instances: number; progress?: FleetProgress }
  | { ok: false; code: string; message: string; status?: number; statusName?: string; instances: number };

export type TaskResult =
  | {
      ok: true;
      order: number[];
      latenessS: number;
      durationS: number;
      iterations: number;
      solveMs: number;
      times?: RouteTimes;
      report?: SolveReport;
      instances: number;
    }
  | { ok: false; code: string; message: string; status?: number; statusName?: string; instances: number };

const module: WebAssembly.Module = workerData.module;
/** An instance whose memory grew past this is not kept for the next task (a fresh one costs about a millisecond). */
const KEEP_MEMORY_BYTES = 16 * 1024 * 1024;
let solver: WasmSolver | null = null;
let instances = 0;

/**
 * The running fleet task's live state. The module reads its clock through `moduleClock`: once the task's stop flag
 * is set, every read after the call's first (its start) is far past any deadline, so the search ends at its next
 * check and returns its best plan. New best plans are posted to the task's port, at most every PROGRESS_MS (and
 * the last one goes back with the result), so a fast search does not flood the caller.
 */
interface Live {
  stop?: Int32Array;
  port?: MessagePort;
  started: boolean;
  progress: FleetProgress;
  postedAt: number;
}
let live: Live | null = null;
const PAST_DEADLINE_MS = 1e12;
const PROGRESS_MS = 50;

function moduleClock(): number {
  const now = performance.now();
  if (live === null) return now;
  if (!live.started) {
    live.started = true;
    return now;
  }
  return live.stop !== undefined && Atomics.load(live.stop, 0) !== 0 ? now + PAST_DEADLINE_MS : now;
}

function onImprove(assigned: number, routeS: number): void {
  if (live === null) return;
  live.progress = { improvements: live.progress.improvements + 1, assigned, routeS };
  const now = performance.now();
  if (live.port && (live.progress.improvements === 1 || now - live.postedAt >= PROGRESS_MS)) {
    live.port.postMessage(live.progress);
    live.postedAt = now;
  }
}

function instance(): WasmSolver {
  if (solver === null) {
    solver = new WasmSolver(module, { moduleClock, onImprove });
    instances += 1;
  }
  return solver;
}

export default function run(task: Task): TaskResult | FleetTaskResult {
  try {
    return runOn(task);
  } finally {
    if (solver !== null && solver.exports.memory.buffer.byteLength > KEEP_MEMORY_BYTES) {
      solver = null;
      // after the answer is posted: this idle worker would otherwise keep the dropped memory until its next GC
      setImmediate(collectGarbage);
    }
  }
}

function runOn(task: Task): TaskResult | FleetTaskResult {
  try {
    const s = instance();
    if (task.kind === 'fleet') return runFleet(s, task);
    if (task.kind === 'trap') {
      s.trapForTest();
      return { ok: false, code: 'trap', message: 'trap_for_test returned', instances };
    }
    const r = s.solve(task, task);
    return { ok: true, ...r, instances };
  } catch (err) {
    if (err instanceof SolverError) {
      return {
        ok: false,
        code: err.code,
        message: err.message,
        status: err.status,
        statusName: err.statusName,
        instances,
      };
    }
    if (err instanceof WebAssembly.RuntimeError) {
      solver = null; // fresh instance for the next task
      return { ok: false, code: 'trap', message: `solver trapped: ${err.message}`, instances };
    }
    solver = null;
    return {
      ok: false,
      code: 'worker_failed',
      message: `solver worker error: ${(err as Error)?.message ?? String(err)}`,
      instances,
    };
  }
}

function runFleet(s: WasmSolver, task: FleetTask): FleetTaskResult {
  const state: Live = {
    stop: task.stopFlag,
    port: task.progress,
    started: false,
    progress: { improvements: 0, assigned: 0, routeS: 0 },
    postedAt: 0,
  };
  live = state;
  try {
    const fleet = solveFleet(s, task.problem, task);
    return { ok: true, fleet, instances, ...(state.progress.improvements > 0 ? { progress: state.progress } : {}) };
  } finally {
    state.port?.close();
    live = null;
  }
}
