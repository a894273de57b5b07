/**
 * TypeScript mirror of the WebAssembly ABI documented at the top of
 * solver-rs/src/ffi.rs (ABI_VERSION 3), and the marshalling around it.
 * Modules of ABI versions 1 and 2 (older builds, for comparisons) are accepted too:
 * version 1 lacks `solve_with_report` (its results carry no report), versions 1
 * and 2 lack `solve_fleet` (plans fail with 'unsupported'). The fleet
 * marshalling is in fleet-abi.ts (`solveFleet(solver, ...)`).
 *
 * Import:  env.now_ms() -> f64                        (performance.now(), or the given clock)
 * Exports: memory
 *          abi_version() -> u32                       (= 3)
 *          alloc(size: u32, align: u32) -> u32        (0 on failure)
 *          dealloc(ptr: u32, size: u32, align: u32)
 *          solve(durations: u32, size: u32, service: u32, deadline: u32, has_end: u32,
 *                seed: u32, time_limit_ms: f64, max_iterations: u32,
 *                stall_iterations: u32, out: u32) -> i32 status
 *            durations i32[size*size]; service, deadline i32[n], n = size - 1 - has_end;
 *            out f64[3 + n] = [lateness, duration, iterations, order...]
 *          solve_with_report(<solve's 10 arguments>, report: u32, report_len: u32,
 *                events: u32, events_capacity: u32) -> i32 status      (ABI 2)
 *            report f64[REPORT_LEN] = [final kick, ms to final, events total, events written,
 *              then (tried, improving, applied) per operator in OPERATOR_NAMES order]
 *            events f64[4 * capacity] = (ms, kick, lateness, duration) per new best route
 *          solve_fleet(travel, distance, locations, vehicles, vehicle_count, jobs, job_count,
 *                dims, capacity, demand, allowed, objective, seed, time_limit_ms: f64,
 *                max_iterations, out, stall_iterations) -> i32 status       (ABI 3; fleet-abi.ts;
 *                stall_iterations was appended later, older ABI 3 modules ignore it)
 *          trap_for_test()                            (always traps)
 */
import { SolverError } from './errors.ts';
import type { OperatorCounter, OperatorName, SolveOptions, SolveProblem, SolveReport, SolveResult } from './types.ts';

export const ABI_VERSION = 3;
/** ABI versions this host can drive. */
export const SUPPORTED_ABI_VERSIONS = [1, 2, 3];
/** Operator counters in the report, in ABI order. */
export const OPERATOR_NAMES: readonly OperatorName[] = ['two_opt', 'or_opt', 'swap', 'segment_swap', 'late_relocate', 'lin_kernighan', 'kick'];
export const REPORT_LEN = 4 + 3 * OPERATOR_NAMES.length;
/** Improvement events kept per solve (the final one is always kept). */
export const EVENT_CAPACITY = 4096;
/** Largest matrix side the module accepts. */
export const MAX_SIZE = 4096;

export const Status = {
  OK: 0,
  BAD_SIZE: 1,
  BAD_LENGTH: 2,
  NEGATIVE_DURATION: 3,
  NEGATIVE_SERVICE: 4,
  BAD_DEADLINE: 5,
  BAD_FLAG: 6,
  BAD_TIME_LIMIT: 7,
  NULL_POINTER: 8,
  MISALIGNED: 9,
  // solve_fleet (ABI 3), solver-rs/src/fleet/flat.rs
  NO_VEHICLES: 10,
  TOO_MANY_VEHICLES: 11,
  NO_JOBS: 12,
  BAD_MATRIX: 13,
  NEGATIVE_VALUE: 14,
  BAD_LOCATION: 15,
  NEGATIVE_QUANTITY: 16,
  BAD_WINDOW: 17,
  BAD_VEHICLE_INDEX: 18,
  BAD_OBJECTIVE: 19,
  TOO_MANY_DIMENSIONS: 20,
  BAD_NUMBER: 21,
} as const;
export type StatusName = keyof typeof Status;

export function statusName(status: number): string {
  for (const [k, v] of Object.entries(Status)) if (v === status) return k;
  return `UNKNOWN_${status}`;
}

export interface SolverExports {
  memory: WebAssembly.Memory;
  abi_version(): number;
  alloc(size: number, align: number): number;
  dealloc(ptr: number, size: number, align: number): void;
  solve(
    durations: number, size: number, service: number, deadline: number, hasEnd: number,
    seed: number, timeLimitMs: number, maxIterations: number, stallIterations: number, out: number,
  ): number;
  /** ABI 2. */
  solve_with_report?(
    durations: number, size: number, service: number, deadline: number, hasEnd: number,
    seed: number, timeLimitMs: number, maxIterations: number, stallIterations: number, out: number,
    report: number, reportLen: number, events: number, eventsCapacity: number,
  ): number;
  /** ABI 3. */
  solve_fleet?(
    travel: number, distance: number, locations: number, vehicles: number, vehicleCount: number,
    jobs: number, jobCount: number, dims: number, capacity: number, demand: number, allowed: number,
    objective: number, seed: number, timeLimitMs: number, maxIterations: number, out: number,
    /** Appended later in ABI 3; modules built before ignore it (their export's length is 16). */
    stallIterations?: number,
  ): number;
  trap_for_test(): void;
}

export interface WasmSolverOptions {
  /** Clock for the time limit and the report's times, in ms. Default performance.now(). */
  clock?: () => number;
}

export function invalid(status: number, message: string): SolverError {
  return new SolverError('invalid_input', message, status, statusName(status));
}

function isU32(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
}

/** Checks what the module cannot check itself (array lengths, option types). */
export function checkProblem(p: SolveProblem, o: SolveOptions): void {
  if (!Number.isInteger(p.size) || p.size < (p.hasEnd ? 2 : 1) || p.size > MAX_SIZE) {
    throw invalid(Status.BAD_SIZE, `size must be an integer in ${p.hasEnd ? 2 : 1}..${MAX_SIZE}`);
  }
  if (typeof p.hasEnd !== 'boolean') throw invalid(Status.BAD_FLAG, 'hasEnd must be a boolean');
  const n = p.size - 1 - (p.hasEnd ? 1 : 0);
  if (!(p.durations instanceof Int32Array) || p.durations.length !== p.size * p.size) {
    throw invalid(Status.BAD_LENGTH, `durations must be an Int32Array of ${p.size * p.size}`);
  }
  if (!(p.serviceS instanceof Int32Array) || p.serviceS.length !== n) {
    throw invalid(Status.BAD_LENGTH, `serviceS must be an Int32Array of ${n}`);
  }
  if (!(p.deadlineS instanceof Int32Array) || p.deadlineS.length !== n) {
    throw invalid(Status.BAD_LENGTH, `deadlineS must be an Int32Array of ${n}`);
  }
  const t = o.timeLimitMs ?? 0;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
    throw invalid(Status.BAD_TIME_LIMIT, 'timeLimitMs must be a finite number >= 0');
  }
  for (const [k, v] of [['seed', o.seed], ['maxIterations', o.maxIterations], ['stallIterations', o.stallIterations]] as const) {
    if (v !== undefined && !isU32(v)) throw invalid(Status.BAD_FLAG, `${k} must be an integer in 0..2^32-1`);
  }
}

/** Minimal module shape checks (so a wrong file fails at load, not at solve). */
export function checkModule(module: WebAssembly.Module): void {
  const names = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  for (const k of ['memory', 'abi_version', 'alloc', 'dealloc', 'solve']) {
    if (!names.has(k)) throw new SolverError('load_failed', `solver module lacks export ${k}`);
  }
}

/**
 * One instance of the module. Not re-entrant. After a trap the instance must
 * be discarded (see `WasmSolver.solve`'s caller): its memory may be corrupt.
 */
export class WasmSolver {
  readonly exports: SolverExports;
  private bytes: Uint8Array;

  readonly abiVersion: number;
  /** The module's clock (ms). */
  readonly clock: () => number;

  constructor(module: WebAssembly.Module, options: WasmSolverOptions = {}) {
    const clock = options.clock ?? (() => performance.now());
    this.clock = clock;
    const instance = new WebAssembly.Instance(module, {
      env: { now_ms: clock },
    });
    this.exports = instance.exports as unknown as SolverExports;
    const v = this.exports.abi_version();
    if (!SUPPORTED_ABI_VERSIONS.includes(v)) {
      throw new SolverError('load_failed', `solver ABI version ${v}, expected one of ${SUPPORTED_ABI_VERSIONS.join(', ')}`);
    }
    this.abiVersion = v;
    this.bytes = new Uint8Array(this.exports.memory.buffer);
  }

  /** Can this module report operator counters and improvement events? */
  get canReport(): boolean {
    return this.abiVersion >= 2 && typeof this.exports.solve_with_report === 'function';
  }

  /** Can this module plan fleets (`solve_fleet`, ABI 3)? */
  get canPlanFleets(): boolean {
    return this.abiVersion >= 3 && typeof this.exports.solve_fleet === 'function';
  }

  /** A view over the current memory (memory.grow detaches old views). */
  private mem(): Uint8Array {
    if (this.bytes.buffer !== this.exports.memory.buffer) this.bytes = new Uint8Array(this.exports.memory.buffer);
    return this.bytes;
  }

  private put(src: Int32Array): number {
    if (src.length === 0) return 0;
    const ptr = this.exports.alloc(src.byteLength, 4);
    if (ptr === 0) throw new SolverError('trap', 'solver out of memory');
    this.mem().set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
    return ptr;
  }

  /** Solve; throws SolverError('invalid_input') on a bad status. Traps propagate as WebAssembly.RuntimeError. */
  solve(p: SolveProblem, o: SolveOptions = {}): SolveResult {
    checkProblem(p, o);
    const n = p.size - 1 - (p.hasEnd ? 1 : 0);
    const e = this.exports;
    const ptrs: Array<[number, number, number]> = [];
    let trapped = false;
    try {
      const dPtr = this.put(p.durations);
      ptrs.push([dPtr, p.durations.byteLength, 4]);
      const sPtr = this.put(p.serviceS);
      if (sPtr) ptrs.push([sPtr, p.serviceS.byteLength, 4]);
      const lPtr = this.put(p.deadlineS);
      if (lPtr) ptrs.push([lPtr, p.deadlineS.byteLength, 4]);
      const outPtr = this.allocF64(3 + n, ptrs);
      const wantReport = o.report === true && this.canReport;
      const reportPtr = wantReport ? this.allocF64(REPORT_LEN, ptrs) : 0;
      const eventsPtr = wantReport ? this.allocF64(4 * EVENT_CAPACITY, ptrs) : 0;
      const args = [
        dPtr, p.size, sPtr, lPtr, p.hasEnd ? 1 : 0,
        (o.seed ?? 1) >>> 0, o.timeLimitMs ?? 0, o.maxIterations ?? 0, o.stallIterations ?? 0, outPtr,
      ] as const;
      const t0 = this.clock();
      const status = wantReport
        ? e.solve_with_report!(...args, reportPtr, REPORT_LEN, eventsPtr, EVENT_CAPACITY)
        : e.solve(...args);
      const solveMs = this.clock() - t0;
      if (status !== Status.OK) throw invalid(status, `solver rejected the problem: ${statusName(status)}`);
      const out = new Float64Array(this.mem().buffer, outPtr, 3 + n);
      const order = Array.from(out.subarray(3), (x) => x);
      const result: SolveResult = { order, latenessS: out[0], durationS: out[1], iterations: out[2], solveMs };
      if (wantReport) result.report = this.readReport(reportPtr, eventsPtr);
      return result;
    } catch (err) {
      trapped = err instanceof WebAssembly.RuntimeError;
      throw err;
    } finally {
      // After a trap the allocator state is unknown: leave it, the caller drops the instance.
      if (!trapped) for (const [ptr, size, align] of ptrs) e.dealloc(ptr, size, align);
    }
  }

  private allocF64(count: number, ptrs: Array<[number, number, number]>): number {
    const bytes = count * 8;
    const ptr = this.exports.alloc(bytes, 8);
    if (ptr === 0) throw new SolverError('trap', 'solver out of memory');
    ptrs.push([ptr, bytes, 8]);
    return ptr;
  }

  private readReport(reportPtr: number, eventsPtr: number): SolveReport {
    const r = new Float64Array(this.mem().buffer, reportPtr, REPORT_LEN);
    const written = r[3];
    const ev = new Float64Array(this.mem().buffer, eventsPtr, 4 * written);
    const improvements = [];
    for (let k = 0; k < written; k++) {
      improvements.push({ ms: ev[4 * k], iteration: ev[4 * k + 1], latenessS: ev[4 * k + 2], durationS: ev[4 * k + 3] });
    }
    const operators = {} as Record<OperatorName, OperatorCounter>;
    OPERATOR_NAMES.forEach((name, k) => {
      operators[name] = { tried: r[4 + 3 * k], improving: r[5 + 3 * k], applied: r[6 + 3 * k] };
    });
    return { finalIteration: r[0], msToFinal: r[1], improvementsTotal: r[2], improvements, operators };
  }

  trapForTest(): void {
    this.exports.trap_for_test();
  }
}
