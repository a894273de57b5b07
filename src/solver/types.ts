/** Public types of the solver module. Units: integer seconds. */

export interface SolveProblem {
  /** (size × size) row-major travel seconds; node 0 = start, 1..n = stops, size-1 = end if hasEnd. */
  durations: Int32Array;
  /** Matrix side m = 1 + stops + (hasEnd ? 1 : 0). */
  size: number;
  /** Service seconds per stop (length n). */
  serviceS: Int32Array;
  /** Deadline per stop in seconds after departure, -1 = none (length n). */
  deadlineS: Int32Array;
  /** true: the route ends at node size-1; false: open route (ends after the last stop's service). */
  hasEnd: boolean;
}

export interface SolveOptions {
  /** PRNG seed (uint32). Same problem + seed + no time limit ⇒ same result. Default 1. */
  seed?: number;
  /** Search time limit in ms; 0 = none (iteration caps only). Default: the pool's defaultTimeLimitMs. */
  timeLimitMs?: number;
  /** Cap on iterated-local-search iterations; 0 = none. */
  maxIterations?: number;
  /** Stop after this many kicks without a new best route; 0 = solver default (converged: see docs/solver.md). */
  stallIterations?: number;
  /** Pool only: abort a waiting or running solve (rejects with SolverError 'aborted'). */
  signal?: AbortSignal;
  /**
   * Also return `report` (operator counters, when the final route was first
   * reached, the improvement events). Needs a module of ABI version 2 or later;
   * ignored for older modules. Default false.
   */
  report?: boolean;
}

export type OperatorName = 'two_opt' | 'or_opt' | 'swap' | 'segment_swap' | 'late_relocate' | 'lin_kernighan' | 'kick';

/** tried: exact evaluations; improving: evaluations that beat the current route; applied: moves made.
 * For `kick`: kicks made, kicks that led to a new best route, kicked routes accepted. */
export interface OperatorCounter {
  tried: number;
  improving: number;
  applied: number;
}

/** A new best route found during the search. */
export interface Improvement {
  /** ms since the solve started (module clock). */
  ms: number;
  /** Kicks made before it (0 = the first descent). */
  iteration: number;
  latenessS: number;
  durationS: number;
}

export interface SolveReport {
  /** Kick after which the final route was first reached (0 = the first descent). */
  finalIteration: number;
  /** When the final route was first reached (ms since the solve started). */
  msToFinal: number;
  /** Improvement events, in order (at most EVENT_CAPACITY; the final one always last). */
  improvements: Improvement[];
  /** Improvements in total (may exceed improvements.length). */
  improvementsTotal: number;
  operators: Record<OperatorName, OperatorCounter>;
}

export interface SolveResult {
  /** 0-based stop indices in visiting order. */
  order: number[];
  /** Total lateness (seconds). */
  latenessS: number;
  /** Duration to the end point, or to the last stop's departure when open (seconds). */
  durationS: number;
  /** Wall time of the solve call (ms). */
  solveMs: number;
  /** Iterated-local-search iterations (kicks; 0 when solved exactly). */
  iterations: number;
  /** Present when requested with `report: true` from a module of ABI version 2 or later. */
  report?: SolveReport;
}

export interface SolverPoolOptions {
  /** Path of the .wasm module. Default: data/solver/solver.wasm of this repository. */
  wasmPath?: string;
  /** Worker threads. Default: available cores. */
  size?: number;
  /** Time limit used when a solve gives none. Default 1000 ms. */
  defaultTimeLimitMs?: number;
  /** Maximum number of solves waiting for a worker; more are rejected with 'queue_full'. Default unlimited. */
  maxQueue?: number;
}
