/** Shared types of the solver comparison benchmark (bench:compare). */
import type { SolveProblem } from '../../../src/solver/types.ts';

export const SET_NAMES = ['tsplib', 'deadlines', 'city'] as const;
export type SetName = (typeof SET_NAMES)[number];

/** How an instance's reference cost (the gap's denominator) is known. */
export type ReferenceKind =
  /** proven optimum (TSPLIB) */
  | 'optimum'
  /** the planted on-time route's duration: an upper bound, lowered to the best on-time route any build finds at the largest budget */
  | 'planted'
  /** none stored: the best route any build finds at the largest budget of the report */
  | 'best-found';

export interface BenchInstance {
  set: SetName;
  name: string;
  /** Stops to order (TSPLIB: cities, the first one is the start). */
  n: number;
  problem: SolveProblem;
  /** Planar coordinates of the problem's nodes when the instance is Euclidean (TSPLIB), for solvers that read coordinates. */
  euc2d?: Array<[number, number]>;
  /** The stored reference duration (optimum or best known), if any. */
  reference?: number;
  referenceKind: ReferenceKind;
  hasDeadlines: boolean;
}

/** One improvement during a search: the best route's cost at `ms` after the solve started. */
export interface ImprovementEvent {
  ms: number;
  latenessS: number;
  durationS: number;
}

/** What a build returns for one solve (the adapter interface every build implements). */
export interface SolveOutcome {
  /** 0-based stop indices in visiting order. */
  order: number[];
  /** Cost as the build reports it (checked against our evaluator), if it reports one. */
  reported?: { latenessS: number; durationS: number };
  /** Wall time of the solve, ms (process start to exit for external solvers). */
  elapsedMs: number;
  /** When the final route was first reached, ms; null when the build does not say. */
  timeToFinalMs: number | null;
  /** Improvement events during the search; null when the build does not report them. */
  events: ImprovementEvent[] | null;
  iterations?: number;
}

/** A raw result: one line of results.jsonl. */
export interface RawResult {
  build: string;
  set: SetName;
  instance: string;
  n: number;
  seed: number;
  budgetMs: number;
  status: 'ok' | 'error';
  /** Our evaluator's cost of the route. */
  latenessS?: number;
  durationS?: number;
  elapsedMs?: number;
  timeToFinalMs?: number | null;
  events?: Array<[number, number, number]> | null;
  iterations?: number;
  order?: number[];
  error?: string;
}
