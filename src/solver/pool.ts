import { availableParallelism } from 'node:os';
import { MessageChannel, type Transferable } from 'node:worker_threads';

import { Piscina } from 'piscina';

import { solverWorkerFile } from '../assets.js';
import { checkProblem } from './abi.js';
import { SolverError, type SolverErrorCode } from './errors.js';
import { checkFleetProblem } from './fleet-abi.js';
import type { FleetOptions, FleetProblem, FleetProgress, FleetResult } from './fleet-types.js';
import { useModuleForTimes } from './evaluate.js';
import { SolverLanes, type LaneTicket } from './lanes.js';
import { DEFAULT_WASM_PATH, compileSolverModule } from './load.js';
import { currentLaneTicket } from './ticket-scope.js';
import type { SolveOptions, SolveProblem, SolveResult, SolverPoolOptions } from './types.js';
import type { FleetTask, FleetTaskResult, Task, TaskResult } from './worker.js';

/**
 * Worker-thread pool running the WebAssembly solver. The module is compiled
 * once here and handed to each worker, which instantiates it once. Which solve
 * runs next is the lanes' choice (src/solver/lanes.ts): a task is handed to
 * piscina only when a worker of its lane is free, so piscina's own queue stays empty.
 */
export class SolverPool {
  private readonly piscina: Piscina<Task, TaskResult | FleetTaskResult>;
  private readonly defaultTimeLimitMs: number;
  private readonly maxQueue: number;
  readonly size: number;
  readonly lanes: SolverLanes;
  private closed = false;

  constructor(o: SolverPoolOptions = {}) {
    const module = compileSolverModule(o.wasmPath ?? DEFAULT_WASM_PATH);
    if (!WebAssembly.Module.exports(module).some((e) => e.name === 'evaluate_route')) {
      throw new SolverError(
        'load_failed',
        `solver module ${o.wasmPath ?? DEFAULT_WASM_PATH} is older than ABI 4: the service needs its schedules (evaluate_route); rebuild it with npm run build:solver`,
      );
    }
    useModuleForTimes(module);
    this.size = Math.max(1, Math.floor(o.size ?? availableParallelism()));
    this.defaultTimeLimitMs = o.defaultTimeLimitMs ?? 1000;
    this.maxQueue = o.maxQueue ?? Number.POSITIVE_INFINITY;
    this.lanes = new SolverLanes({
      workers: this.size,
      smallWorkers: Math.min(this.size - 1, Math.max(0, Math.floor(o.smallWorkers ?? (this.size > 1 ? 1 : 0)))),
      smallMs: o.smallSolveMs ?? 1000,
    });
    this.piscina = new Piscina<Task, TaskResult | FleetTaskResult>({
      filename: solverWorkerFile(),
      minThreads: this.size,
      maxThreads: this.size,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { module },
    });
    // A worker that fails to start or dies surfaces through the task's rejection.
    this.piscina.on('error', () => {});
  }

  /**
   * True while the pool takes new solves: open, with room in its queue. (Workers are not counted: they start
   * shortly after the pool, and piscina replaces one that dies; a solve meanwhile waits in the queue.)
   */
  accepting(): boolean {
    return !this.closed && this.lanes.active() - this.size < this.maxQueue;
  }

  /** Solves waiting for a free worker (not counting the ones running). */
  queueDepth(): number {
    return this.lanes.waiting();
  }

  async solve(p: SolveProblem, o: SolveOptions = {}): Promise<SolveResult> {
    if (this.closed) throw new SolverError('closed', 'solver pool is closed');
    const opts: SolveOptions = { ...o, timeLimitMs: o.timeLimitMs ?? this.defaultTimeLimitMs };
    checkProblem(p, opts);
    this.checkQueue();
    if (o.signal?.aborted) throw new SolverError('aborted', 'solve aborted');
    const task: Task = {
      kind: 'solve',
      durations: p.durations,
      size: p.size,
      serviceS: p.serviceS,
      deadlineS: p.deadlineS,
      hasEnd: p.hasEnd,
      seed: opts.seed,
      timeLimitMs: opts.timeLimitMs ?? 0,
      maxIterations: opts.maxIterations,
      stallIterations: opts.stallIterations,
      report: opts.report,
    };
    const r = (await this.dispatch(task, task.timeLimitMs, o.signal)) as TaskResult;
    if (!r.ok) throw fromResult(r);
    const result: SolveResult = {
      order: r.order,
      latenessS: r.latenessS,
      durationS: r.durationS,
      solveMs: r.solveMs,
      iterations: r.iterations,
    };
    if (r.times) result.times = r.times;
    if (r.report) result.report = r.report;
    return result;
  }

  /**
   * Plan several vehicles on a worker (module of ABI 3). Same queue, abort and
   * default time limit as `solve`; a bad problem rejects with 'invalid_input' before it is queued.
   */
  async solveFleet(p: FleetProblem, o: FleetOptions = {}): Promise<FleetResult> {
    if (this.closed) throw new SolverError('closed', 'solver pool is closed');
    const timeLimitMs = o.timeLimitMs ?? this.defaultTimeLimitMs;
    checkFleetProblem(p, { ...o, timeLimitMs });
    this.checkQueue();
    if (o.signal?.aborted) throw new SolverError('aborted', 'solve aborted');
    const live = liveFleet(o);
    try {
      const r = (await this.dispatch(
        {
          kind: 'fleet',
          problem: p,
          seed: o.seed,
          timeLimitMs,
          maxIterations: o.maxIterations,
          stallIterations: o.stallIterations,
          ...live.task,
        },
        timeLimitMs,
        o.signal,
        live.transfer,
      )) as FleetTaskResult;
      if (!r.ok) throw fromResult(r);
      if (r.progress) live.seen(r.progress);
      return r.fleet;
    } finally {
      live.end();
    }
  }

  /** Test hook: make a worker's instance trap. Rejects with SolverError('trap'). */
  async trapForTest(): Promise<never> {
    const r = (await this.dispatch({ kind: 'trap' }, 0)) as TaskResult;
    throw fromResult(
      r.ok ? { ok: false, code: 'worker_failed', message: 'trap task succeeded', instances: r.instances } : r,
    );
  }

  /** Number of WebAssembly instances the worker that runs this probe has created (tests). */
  async instancesForTest(): Promise<number> {
    const r = (await this.dispatch(
      {
        kind: 'solve',
        durations: new Int32Array(1),
        size: 1,
        serviceS: new Int32Array(0),
        deadlineS: new Int32Array(0),
        hasEnd: false,
        timeLimitMs: 0,
      },
      0,
    )) as TaskResult;
    return r.instances;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.destroy();
  }

  private checkQueue(): void {
    if (this.lanes.active() - this.size >= this.maxQueue) {
      throw new SolverError('queue_full', `solver queue is full (${this.maxQueue} waiting)`);
    }
  }

  private async dispatch(
    task: Task,
    costMs: number,
    signal?: AbortSignal,
    transferList: Transferable[] = [],
  ): Promise<TaskResult | FleetTaskResult> {
    // Typed arrays are structured-cloned (one memcpy each); the caller keeps its buffers.
    // An abort drops a waiting task, or terminates the worker running it (piscina
    // replaces the thread).
    const callTicket = currentLaneTicket();
    const ticket = callTicket ?? this.lanes.reserve('', costMs);
    try {
      await workerFor(ticket, costMs, signal);
      // however long it waited, the solve ends before its call's deadline (src/solver/lanes.ts)
      if (task.kind !== 'trap') task.timeLimitMs = ticket.timeLimitAtStart(task.timeLimitMs);
      return await this.piscina.run(task, { ...(signal ? { signal } : {}), transferList });
    } catch (err) {
      if (signal?.aborted) throw new SolverError('aborted', 'solve aborted');
      if (this.closed) throw new SolverError('closed', 'solver pool is closed');
      throw new SolverError('worker_failed', `solver worker failed: ${(err as Error)?.message ?? String(err)}`);
    } finally {
      ticket.finished();
      if (!callTicket) ticket.release();
    }
  }
}

/** Resolves when the lanes give `ticket` a worker; rejects when `signal` aborts first (the entry leaves the queue). */
function workerFor(ticket: LaneTicket, costMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    ticket.ready(costMs, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

function fromResult(r: Extract<TaskResult | FleetTaskResult, { ok: false }>): SolverError {
  return new SolverError(r.code as SolverErrorCode, r.message, r.status, r.statusName);
}

/**
 * A fleet solve's stop flag (shared memory the worker's clock reads: src/solver/worker.ts) and progress port, when
 * its caller asked for them. Progress only moves forward: a port message that arrives after the result's is dropped.
 */
function liveFleet(o: FleetOptions): {
  task: Pick<FleetTask, 'stopFlag' | 'progress'>;
  transfer: Transferable[];
  seen: (p: FleetProgress) => void;
  end: () => void;
} {
  const task: Pick<FleetTask, 'stopFlag' | 'progress'> = {};
  const transfer: Transferable[] = [];
  const ends: Array<() => void> = [];
  if (o.stop) {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const raise = (): void => void Atomics.store(flag, 0, 1);
    if (o.stop.aborted) raise();
    o.stop.addEventListener('abort', raise, { once: true });
    ends.push(() => o.stop!.removeEventListener('abort', raise));
    task.stopFlag = flag;
  }
  let improvements = 0;
  const seen = (p: FleetProgress): void => {
    if (p.improvements <= improvements) return;
    improvements = p.improvements;
    o.onProgress?.(p);
  };
  if (o.onProgress) {
    const channel = new MessageChannel();
    channel.port1.on('message', seen);
    task.progress = channel.port2;
    transfer.push(channel.port2);
    ends.push(() => channel.port1.close());
  }
  return { task, transfer, seen, end: () => ends.forEach((end) => end()) };
}
