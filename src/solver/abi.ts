/**
 * TypeScript mirror of the WebAssembly ABI documented at the top of
 * solver-rs/src/ffi.rs (ABI_VERSION 1), and the marshalling around it.
 *
 * Import:  env.now_ms() -> f64                        (performance.now())
 * Exports: memory
 *          abi_version() -> u32                       (= 1)
 *          alloc(size: u32, align: u32) -> u32        (0 on failure)
 *          dealloc(ptr: u32, size: u32, align: u32)
 *          solve(durations: u32, size: u32, service: u32, deadline: u32, has_end: u32,
 *                seed: u32, time_limit_ms: f64, max_iterations: u32,
 *                stall_iterations: u32, out: u32) -> i32 status
 *            durations i32[size*size]; service, deadline i32[n], n = size - 1 - has_end;
 *            out f64[3 + n] = [lateness, duration, iterations, order...]
 *          trap_for_test()                            (always traps)
 */
import { SolverError } from './errors.ts';
import type { SolveOptions, SolveProblem, SolveResult } from './types.ts';

export const ABI_VERSION = 1;
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
  trap_for_test(): void;
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

  constructor(module: WebAssembly.Module) {
    const instance = new WebAssembly.Instance(module, {
      env: { now_ms: () => performance.now() },
    });
    this.exports = instance.exports as unknown as SolverExports;
    const v = this.exports.abi_version();
    if (v !== ABI_VERSION) throw new SolverError('load_failed', `solver ABI version ${v}, expected ${ABI_VERSION}`);
    this.bytes = new Uint8Array(this.exports.memory.buffer);
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
      const outBytes = (3 + n) * 8;
      const outPtr = e.alloc(outBytes, 8);
      if (outPtr === 0) throw new SolverError('trap', 'solver out of memory');
      ptrs.push([outPtr, outBytes, 8]);
      const t0 = performance.now();
      const status = e.solve(
        dPtr, p.size, sPtr, lPtr, p.hasEnd ? 1 : 0,
        (o.seed ?? 1) >>> 0, o.timeLimitMs ?? 0, o.maxIterations ?? 0, o.stallIterations ?? 0, outPtr,
      );
      const solveMs = performance.now() - t0;
      if (status !== Status.OK) throw invalid(status, `solver rejected the problem: ${statusName(status)}`);
      const out = new Float64Array(this.mem().buffer, outPtr, 3 + n);
      const order = Array.from(out.subarray(3), (x) => x);
      return { order, latenessS: out[0], durationS: out[1], iterations: out[2], solveMs };
    } catch (err) {
      trapped = err instanceof WebAssembly.RuntimeError;
      throw err;
    } finally {
      // After a trap the allocator state is unknown: leave it, the caller drops the instance.
      if (!trapped) for (const [ptr, size, align] of ptrs) e.dealloc(ptr, size, align);
    }
  }

  trapForTest(): void {
    this.exports.trap_for_test();
  }
}
