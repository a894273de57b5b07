/**
 * Piscina worker: one WebAssembly instance per thread, created from the module
 * compiled once by the pool (passed in workerData). A trap replaces the
 * instance; errors are returned as values so their codes survive the thread hop.
 * WebAssembly memory only grows: an instance that grew past KEEP_MEMORY_BYTES for a
 * big problem (about 33 MB for 1000 stops) is dropped after it (and collected at
 * once: src/solver/collect-garbage.ts), and the next task gets a fresh one, so a
 * flood of big plans leaves no worker holding its peak.
 */
import { workerData } from 'node:worker_threads';

import { WasmSolver } from './abi.ts';
import { collectGarbage } from './collect-garbage.ts';
import { SolverError } from './errors.ts';
import { solveFleet } from './fleet-abi.ts';
import type { FleetProblem, FleetResult } from './fleet-types.ts';
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
}
export type Task = SolveTask | TrapTask | FleetTask;

export type FleetTaskResult =
  | { ok: true; fleet: FleetResult; instances: number }
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

function instance(): WasmSolver {
  if (solver === null) {
    solver = new WasmSolver(module);
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
    if (task.kind === 'fleet') {
      return { ok: true, fleet: solveFleet(s, task.problem, task), instances };
    }
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
