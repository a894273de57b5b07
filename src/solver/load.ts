import { readFileSync } from 'node:fs';

import { assetPath } from '../assets.ts';
import { WasmSolver, checkModule, type WasmSolverOptions } from './abi.ts';
import { SolverError } from './errors.ts';
import { solveFleet } from './fleet-abi.ts';
import type { FleetOptions, FleetProblem, FleetResult } from './fleet-types.ts';
import type { RouteTimes, SolveOptions, SolveProblem, SolveResult } from './types.ts';

/** The committed module (data/solver/solver.wasm), wherever the service runs from. */
export const DEFAULT_WASM_PATH = assetPath('solver/solver.wasm');

/** Read and compile the module once. */
export function compileSolverModule(wasmPath: string = DEFAULT_WASM_PATH): WebAssembly.Module {
  let bytes: Buffer;
  try {
    bytes = readFileSync(wasmPath);
  } catch (err) {
    throw new SolverError('load_failed', `cannot read solver module ${wasmPath}: ${(err as Error).message}`);
  }
  let module: WebAssembly.Module;
  try {
    module = new WebAssembly.Module(
      new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array<ArrayBuffer>,
    );
  } catch (err) {
    throw new SolverError('load_failed', `cannot compile solver module ${wasmPath}: ${(err as Error).message}`);
  }
  checkModule(module);
  return module;
}

export interface InThreadSolver {
  /** ABI version of the loaded module (1 = older build without reports). */
  readonly abiVersion: number;
  solve(problem: SolveProblem, options?: SolveOptions): SolveResult;
  /** The times of a given visiting order, no search (ABI 4; SolverError 'unsupported' on older modules). */
  evaluate(problem: SolveProblem, order: readonly number[]): RouteTimes;
  /** Plan several vehicles (ABI 3; SolverError 'unsupported' on older modules). */
  solveFleet(problem: FleetProblem, options?: FleetOptions): FleetResult;
  /** Calls the module's trap_for_test export (tests). */
  trapForTest(): void;
}

/**
 * In-thread solver for benchmarks and tests (blocks the calling thread).
 * A trap becomes SolverError('trap') and the instance is replaced.
 */
export function loadSolver(wasmPath: string = DEFAULT_WASM_PATH, options: WasmSolverOptions = {}): InThreadSolver {
  const module = compileSolverModule(wasmPath);
  let inst = new WasmSolver(module, options);
  const guard = <T>(f: () => T): T => {
    try {
      return f();
    } catch (err) {
      if (err instanceof WebAssembly.RuntimeError) {
        inst = new WasmSolver(module, options);
        throw new SolverError('trap', `solver trapped: ${err.message}`);
      }
      throw err;
    }
  };
  return {
    abiVersion: inst.abiVersion,
    solve: (problem, options = {}) => guard(() => inst.solve(problem, options)),
    evaluate: (problem, order) => guard(() => inst.evaluate(problem, order)),
    solveFleet: (problem, options = {}) => guard(() => solveFleet(inst, problem, options)),
    trapForTest: () => guard(() => inst.trapForTest()),
  };
}
