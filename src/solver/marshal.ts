/**
 * The one way this host calls the module: allocate and copy the inputs in, call, read the status,
 * copy the outputs out, free, and leave the allocator alone after a trap (the caller then drops the
 * instance). The route entries (solve, solve_with_report, evaluate_route) and solve_fleet all go
 * through `callModule`; the options they share are checked once, by `checkOptions`.
 */
import { SolverError } from './errors.ts';
import { STATUS_MEANING, Status } from './abi-constants.generated.ts';

export interface ModuleMemory {
  memory: WebAssembly.Memory;
  alloc(size: number, align: number): number;
  dealloc(ptr: number, size: number, align: number): void;
}

export type StatusName = keyof typeof Status;

export function statusName(status: number): string {
  for (const [k, v] of Object.entries(Status)) if (v === status) return k;
  return `UNKNOWN_${status}`;
}

export function invalid(status: number, message: string): SolverError {
  return new SolverError('invalid_input', message, status, statusName(status));
}

/** An input array; null/undefined or empty is passed as the null pointer 0. */
export type InputArray = Int32Array | Uint32Array | Float64Array | null | undefined;

/**
 * Call an export over linear memory. `inputs` are copied in (pointer 0 for absent or empty ones);
 * `outputs` are f64 counts allocated zeroed by the module's allocator (0 = no block, pointer 0);
 * `invoke` gets the pointers and returns the status. A status other than OK throws
 * SolverError('invalid_input') naming `what`; a trap propagates as WebAssembly.RuntimeError.
 * Returns copies of the outputs.
 */
export function callModule(
  e: ModuleMemory,
  inputs: readonly InputArray[],
  outputs: readonly number[],
  invoke: (inputPtrs: number[], outputPtrs: number[]) => number,
  what: string,
): Float64Array[] {
  const blocks: Array<[number, number, number]> = [];
  const alloc = (bytes: number, align: number): number => {
    const ptr = e.alloc(bytes, align);
    if (ptr === 0) throw new SolverError('trap', 'solver out of memory');
    blocks.push([ptr, bytes, align]);
    return ptr;
  };
  let trapped = false;
  try {
    const inputPtrs = inputs.map((src) => {
      if (!src || src.length === 0) return 0;
      const ptr = alloc(src.byteLength, src.BYTES_PER_ELEMENT);
      new Uint8Array(e.memory.buffer).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
      return ptr;
    });
    const outputPtrs = outputs.map((count) => (count > 0 ? alloc(8 * count, 8) : 0));
    const status = invoke(inputPtrs, outputPtrs);
    if (status !== Status.OK) {
      throw invalid(
        status,
        `solver rejected ${what}: ${statusName(status)} (${STATUS_MEANING[status] ?? 'unknown status'})`,
      );
    }
    // views made after the call: memory.grow detaches the old ones
    return outputPtrs.map((ptr, k) =>
      ptr === 0 ? new Float64Array(0) : new Float64Array(e.memory.buffer, ptr, outputs[k]).slice(),
    );
  } catch (err) {
    trapped = err instanceof WebAssembly.RuntimeError;
    throw err;
  } finally {
    if (!trapped) for (const [ptr, size, align] of blocks) e.dealloc(ptr, size, align);
  }
}

/** The options of every solve: a time limit, and the uint32 seed and iteration caps. */
export interface CallOptions {
  seed?: number | undefined;
  timeLimitMs?: number | undefined;
  maxIterations?: number | undefined;
  stallIterations?: number | undefined;
}

const isU32 = (x: unknown): boolean => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;

/** Checks the options both entry points take, with the same statuses: BAD_TIME_LIMIT, BAD_NUMBER. */
export function checkOptions(o: CallOptions): void {
  const t = o.timeLimitMs ?? 0;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0)
    throw invalid(Status.BAD_TIME_LIMIT, 'timeLimitMs must be a finite number >= 0');
  for (const [k, v] of [
    ['seed', o.seed],
    ['maxIterations', o.maxIterations],
    ['stallIterations', o.stallIterations],
  ] as const) {
    if (v !== undefined && !isU32(v)) throw invalid(Status.BAD_NUMBER, `${k} must be an integer in 0..2^32-1`);
  }
}
