/** Public types of the solver module. Units: integer seconds. */
import type { OPERATOR_NAMES } from './abi-constants.generated.ts';

export interface SolveProblem {
  /** (size × size) row-major travel seconds; node 0 = start, 1..n = stops, size-1 = end if hasEnd. */
  durations: Int32Array;
  /** Matrix side m = 1 + stops + (hasEnd ? 1 : 0). */
  size: number;
  /** Service seconds per stop (length n). */
  serviceS: Int32Array;
  /**
   * Deadline per stop in seconds after departure, NO_DEADLINE (-2^31) = none (length n). A negative
   * deadline was already past at departure: the search counts it from 0 (a constant for that stop),
   * the returned times use it as given.
   */
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

export type OperatorName = (typeof OPERATOR_NAMES)[number];

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

/** The times of one stop, whole seconds after the departure instant: the solver's arithmetic (src/schedule only formats them). */
export interface StopTimes {
  arrivalS: number;
  /** startS − arrivalS: waiting for the stop's earliest start (always 0 on single routes). */
  waitS: number;
  /** Start of service. */
  startS: number;
  /** End of service; the next leg starts then. */
  departureS: number;
  /** Start of service past the deadline (as given), 0 when on time or without one. */
  latenessS: number;
}

/** The times of one route (ABI 4), seconds after the departure instant of the call. */
export interface RouteTimes {
  /** When the vehicle leaves its start (0 on single routes; a fleet vehicle's shift start). */
  departureS: number;
  /** In visiting order. */
  stops: StopTimes[];
  /** Arrival at the end point, or the end of the last service when the route is open. */
  endS: number;
  /** endS − departureS. */
  durationS: number;
  /** Sum of the stops' lateness. */
  latenessS: number;
  /** Fleet routes of a vehicle with breaks: each break as taken, by start. */
  breaks?: BreakTimes[];
}

/** A vehicle break as scheduled (solver-rs/src/fleet/breaks.rs). */
export interface BreakTimes {
  /** Index in the vehicle's `breaks`. */
  index: number;
  startS: number;
  /** startS + the break's duration. */
  endS: number;
  /** How many of the route's stops come before it (it is taken after stops[afterStops - 1]'s service). */
  afterStops: number;
  /** Arrival at what follows it (stops[afterStops], or the end point): a break starting earlier was taken before that leg. */
  nextArrivalS: number;
}

export interface SolveResult {
  /** 0-based stop indices in visiting order. */
  order: number[];
  /** Total lateness (seconds; ABI 4: against the deadlines as given, ABI 1–3: negative ones counted from 0). */
  latenessS: number;
  /** Duration to the end point, or to the last stop's departure when open (seconds). */
  durationS: number;
  /** Every stop's times (ABI 4; absent from older modules). */
  times?: RouteTimes;
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
  /** Workers kept for small solves (src/solver/lanes.ts). Default 1 when size > 1, else 0; at most size − 1. */
  smallWorkers?: number;
  /** A solve with a time limit of at most this many ms is small. Default 1000. */
  smallSolveMs?: number;
}
