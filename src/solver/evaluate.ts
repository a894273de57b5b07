/**
 * The times of a given visiting order, computed by the module's `evaluate_route` in the calling
 * thread (no search: linear in the stops, microseconds for the largest routes). For callers that
 * change the solver's order afterwards (optimize puts stops at one place back in input order) and
 * need the times of the order they keep, with no second implementation of the arithmetic. The module
 * is the service's pool's (SolverPool registers it), else the committed one.
 */
import { SolverError } from './errors.js';
import { WasmSolver } from './abi.js';
import { compileSolverModule } from './load.js';
import type { RouteTimes, SolveProblem, SolveResult } from './types.js';

let module: WebAssembly.Module | null = null;
let evaluator: WasmSolver | null = null;

/** Time routes with this module from now on (the pool's, so that times and solves come from one build). */
export function useModuleForTimes(m: WebAssembly.Module): void {
  if (m !== module) [module, evaluator] = [m, null];
}

/** Times of `order` (0-based stop indices) on `problem`; loads the module on first use. */
export function routeTimes(problem: SolveProblem, order: readonly number[]): RouteTimes {
  module ??= compileSolverModule();
  evaluator ??= new WasmSolver(module);
  try {
    return evaluator.evaluate(problem, order);
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err;
    evaluator = null; // its memory may be corrupt: a fresh instance next time
    throw new SolverError('trap', `solver trapped: ${err.message}`);
  }
}

/** The times of `order`: the solve's own when `order` is the solver's, evaluated otherwise. */
export function timesForOrder(problem: SolveProblem, solved: SolveResult, order: readonly number[]): RouteTimes {
  const same = order.length === solved.order.length && order.every((s, k) => s === solved.order[k]);
  return same && solved.times ? solved.times : routeTimes(problem, order);
}
