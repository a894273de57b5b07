/**
 * The times of a given visiting order, computed by the committed module's `evaluate_route` in the
 * calling thread (no search: linear in the stops, microseconds for the largest routes). For callers
 * that change the solver's order afterwards (optimize puts stops at one place back in input order)
 * and need the times of the order they keep, with no second implementation of the arithmetic.
 */
import { loadSolver, type InThreadSolver } from './load.js';
import type { RouteTimes, SolveProblem, SolveResult } from './types.js';

let evaluator: InThreadSolver | null = null;

/** Times of `order` (0-based stop indices) on `problem`; loads the module on first use. */
export function routeTimes(problem: SolveProblem, order: readonly number[]): RouteTimes {
  evaluator ??= loadSolver();
  return evaluator.evaluate(problem, order);
}

/** The times of `order`: the solve's own when `order` is the solver's, evaluated otherwise. */
export function timesForOrder(problem: SolveProblem, solved: SolveResult, order: readonly number[]): RouteTimes {
  const same = order.length === solved.order.length && order.every((s, k) => s === solved.order[k]);
  return same && solved.times ? solved.times : routeTimes(problem, order);
}
