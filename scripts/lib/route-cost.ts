/**
 * The benchmarks' own evaluator: lateness and duration of a visiting order on a
 * solver problem, recomputed outside the solver so every build and every
 * external solver is scored by the same rule (the contract of solver-rs's
 * Problem::route_cost).
 */
import { NO_DEADLINE } from '../../src/solver/abi-constants.generated.ts';
import type { SolveProblem } from '../../src/solver/types.ts';

export interface RouteCost {
  /** Total lateness, seconds (arrival after the deadline). */
  latenessS: number;
  /** Seconds from departure to the end point, or to the last stop's departure on an open route. */
  durationS: number;
}

/** Stops in the problem (matrix side minus the start and the optional end). */
export function stopCount(p: SolveProblem): number {
  return p.size - 1 - (p.hasEnd ? 1 : 0);
}

/** Throws when `order` is not a permutation of the problem's stops. */
export function checkOrder(p: SolveProblem, order: readonly number[]): void {
  const n = stopCount(p);
  if (order.length !== n) throw new Error(`route visits ${order.length} stops, the problem has ${n}`);
  const seen = new Uint8Array(n);
  for (const s of order) {
    if (!Number.isInteger(s) || s < 0 || s >= n) throw new Error(`route has an unknown stop ${s}`);
    if (seen[s]) throw new Error(`route visits stop ${s} twice`);
    seen[s] = 1;
  }
}

export function routeCost(p: SolveProblem, order: readonly number[]): RouteCost {
  checkOrder(p, order);
  return orderCost(p, order);
}

/** The cost of an order known to be a permutation of the stops (the solver tests check that first). */
export function orderCost(p: SolveProblem, order: readonly number[]): RouteCost {
  const m = p.size;
  let t = 0;
  let late = 0;
  let prev = 0;
  for (const s of order) {
    t += p.durations[prev * m + s + 1];
    if (p.deadlineS[s] !== NO_DEADLINE && t > p.deadlineS[s]) late += t - p.deadlineS[s];
    t += p.serviceS[s];
    prev = s + 1;
  }
  if (p.hasEnd) t += p.durations[prev * m + m - 1];
  return { latenessS: late, durationS: t };
}

/** Lexicographic: lateness first, then duration. Negative when a is better. */
export function compareCost(a: RouteCost, b: RouteCost): number {
  return a.latenessS - b.latenessS || a.durationS - b.durationS;
}
