/**
 * Types of the fleet solver (several vehicles, capacities, time windows, shifts).
 * Times are integers in the matrix's unit (seconds for the service; the Solomon
 * bench uses a fixed-point scale). Locations are indices into the matrices.
 */
import {
  DISTANCE_OBJECTIVE as GENERATED_DISTANCE_OBJECTIVE,
  SERVICE_OBJECTIVE as GENERATED_SERVICE_OBJECTIVE,
} from './abi-constants.generated.ts';
import type { RouteTimes } from './types.ts';

export interface FleetVehicle {
  /** Matrix index of the start. */
  start: number;
  /** Matrix index of the end; absent = the route ends after its last service (open). */
  end?: number;
  /** Departure time (every vehicle leaves at its shift start). Default 0. */
  shiftStart?: number;
  /** Latest return at the end (or after the last service when open); absent = no limit. */
  shiftEnd?: number;
  /** One value per demand dimension (missing dimensions count as 0). */
  capacity?: number[];
  maxStops?: number;
  /** Longest route, departure to return, waiting included (hard); absent = none. */
  maxDuration?: number;
  /** Most time spent driving, the sum of its legs' travel times (hard); absent = none. */
  maxDriving?: number;
  /** Longest route over `FleetProblem.limitDistance` (or the objective's distances) (hard); absent = none. */
  maxDistance?: number;
  /**
   * Breaks taken when the vehicle is used (hard): each starts inside [start, end] and lasts `duration`, taken
   * while the vehicle stands (before a leg, waiting at a stop, or at the end). At most MAX_BREAKS.
   */
  breaks?: FleetBreak[];
  /**
   * The vehicle's own costs, in the objective's main unit, added when it is used: `fixed` once, `perDuration` per
   * unit of its route's duration (departure to return, waiting included), `perDistance` per unit of its objective
   * distance (`FleetProblem.distance`). Whole numbers >= 0; absent: none (EXTRA.VEHICLE_COSTS, src/solver/fleet-costs.ts).
   */
  costs?: FleetVehicleCosts;
}

export interface FleetVehicleCosts {
  fixed?: number;
  perDuration?: number;
  perDistance?: number;
}

/**
 * A secondary objective that evens work across the used routes: each used route adds `stops` × s² +
 * ⌊`duration` × d² / `durationScale`⌋ to the main cost (s its jobs, d its duration). Whole numbers >= 0, the scale >= 1.
 */
export interface FleetBalance {
  stops: number;
  duration: number;
  durationScale: number;
}

export interface FleetBreak {
  start: number;
  end: number;
  duration: number;
}

export interface FleetJob {
  /** Matrix index of the job. */
  location: number;
  /** Service time. Default 0. */
  service?: number;
  /** Earliest start of service (waiting allowed). Default 0. */
  ready?: number;
  /** Latest start of service (hard); absent = none. */
  due?: number;
  /** Soft deadline on the start of service (lateness beyond it); absent = none. May be negative (already past at 0): the search counts it from 0, the times use it as given. */
  deadline?: number;
  /** One value per demand dimension. */
  demand?: number[];
  /** Vehicle indices allowed to serve the job; absent = all. */
  allowedVehicles?: number[];
  /**
   * Time windows on the start of service, `[start, end]` pairs in time order, disjoint (each starts after the
   * previous one ends), at most MAX_WINDOWS; absent = [ready, due] alone. Hard: service starts inside one, a
   * vehicle arriving between two waits for the next. Intersected with [ready, due]; an empty list (or one the
   * intersection empties) means the job is never served (unassigned, reason `timeWindows`).
   */
  windows?: Array<readonly [number, number]>;
  /**
   * 0 (default) to 1,000,000. When not every job fits, the plan keeps the largest sum of assigned priorities
   * first, then the most jobs (a job left out costs priority × (jobs + 1) + 1 in `cost.unassigned`).
   */
  priority?: number;
  /** One value per demand dimension: loaded at this job and carried to the route's end (a backhaul); default none. */
  pickup?: number[];
}

/**
 * After assigned jobs (most first) and total lateness (least first), the
 * solver minimises vehicleCost × vehicles used + durationWeight × total
 * duration + distanceWeight × total distance, plus the used vehicles' own
 * `costs` and the `balance` term of each used route.
 */
export interface FleetObjective {
  vehicleCost: number;
  durationWeight: number;
  distanceWeight: number;
  /** Absent: none. */
  balance?: FleetBalance;
}

/**
 * The service's objective: vehicles used, then total duration (waiting included), then the time
 * spent driving (the "distance" is the travel-time matrix when no distance matrix is given). A
 * vehicle costs 2^40, more than any day's weighted duration; a second of duration weighs 1024
 * seconds of driving, so driving only breaks near-ties. Without that last term a route that has to
 * wait for a `ready` time may as well zigzag: driving instead of waiting costs no duration.
 */
export const SERVICE_OBJECTIVE: FleetObjective = GENERATED_SERVICE_OBJECTIVE;
/** Total distance only. */
export const DISTANCE_OBJECTIVE: FleetObjective = GENERATED_DISTANCE_OBJECTIVE;

export interface FleetProblem {
  /** Matrix side. */
  locations: number;
  /** locations² row-major travel times; -1 = unreachable. */
  travel: Int32Array;
  /** locations² distances for the objective; absent = the travel times. */
  distance?: Int32Array;
  /** locations² distances the vehicles' maxDistance counts (-1 unreachable); absent = `distance`. */
  limitDistance?: Int32Array;
  vehicles: FleetVehicle[];
  jobs: FleetJob[];
  /** Default SERVICE_OBJECTIVE. */
  objective?: FleetObjective;
  /** Pickup-and-delivery pairs, as job indices: same vehicle, pickup first; the pickup job's `demand` is the amount loaded there and the delivery job's `demand` the same amount unloaded (give both jobs the same demand vector); each job in at most one pair. */
  shipments?: Array<{ pickup: number; delivery: number }>;
}

export interface FleetOptions {
  /** PRNG seed (uint32). Default 1. */
  seed?: number;
  /** Time limit in ms; 0 = none. Used only when maxIterations is 0. */
  timeLimitMs?: number;
  /** Ruin-and-recreate iterations; 0 = run to the time limit (20000 when there is none either). */
  maxIterations?: number;
  /**
   * Anytime stop (uint32; 0 or absent = off): end the search once the best plan has not improved for
   * this many ruin-and-recreate iterations (the fleet-minimisation phase likewise ends after this many
   * iterations without taking a vehicle away), well before the time limit on small plans. The annealing
   * then cools within that many iterations. Works with a time limit and with maxIterations (deterministic
   * there). `serviceStallIterations(jobs)` is the service's rule. An ABI 3 module built before this
   * option (its solve_fleet takes 16 parameters) ignores it and runs to its budget.
   */
  stallIterations?: number;
  /** Pool only: abort a waiting or running plan. */
  signal?: AbortSignal;
  /**
   * Pool only: when it aborts, the search ends at its next check and the plan resolves with its best plan so far
   * (unlike `signal`, which rejects). The construction checks it too: stopped before the first progress, the
   * plan leaves out the stops not yet placed. Needs a time-limited solve (maxIterations 0): a solve capped by
   * iterations never reads its clock for a decision, and runs on.
   */
  stop?: AbortSignal;
  /** Pool only: the search's new best plans as they come (at most every 50 ms, and the last one before it resolves). */
  onProgress?: (progress: FleetProgress) => void;
}

/** The fleet search's best plan so far (`env.on_improve`). */
export interface FleetProgress {
  /** New best plans so far: the construction's is the first. */
  improvements: number;
  /** Jobs the best plan serves. */
  assigned: number;
  /** Its routes' total duration (s), waits included. */
  routeS: number;
}

export type UnassignedReason =
  'capacity' | 'shift' | 'allowedVehicles' | 'unreachable' | 'timeWindows' | 'routeLimit' | 'priority';

export interface FleetRoute {
  /** Vehicle index. */
  vehicle: number;
  /** Job indices in visiting order. */
  jobs: number[];
  /** Service start per job (same order). */
  starts: number[];
  /** The vehicle's departure, every stop's times and its return (ABI 4; absent from ABI 3 modules). */
  times?: RouteTimes;
  /** Return (or last departure when open) minus the shift start, waiting included. */
  duration: number;
  distance: number;
  lateness: number;
}

export interface FleetCostParts {
  unassigned: number;
  lateness: number;
  vehicles: number;
  duration: number;
  distance: number;
  /** The objective's weighted part (vehicleCost × vehicles + ...). */
  main: number;
}

export interface FleetResult {
  /** One per vehicle used, by vehicle index. */
  routes: FleetRoute[];
  unassigned: Array<{ job: number; reason: UnassignedReason }>;
  cost: FleetCostParts;
  /** Ruin-and-recreate iterations performed. */
  iterations: number;
  /** Iteration at which the returned plan was found. */
  bestIteration: number;
  /** Wall time of the call (ms). */
  solveMs: number;
}

/**
 * The service's anytime stop (FleetOptions.stallIterations) for a plan of `jobs` stops: max(100, ⌈jobs²/10⌉)
 * iterations without a better plan. Measured (docs/solver.md "Anytime stop"): up to ~50 stops the plan equals
 * the full budget's and comes back in milliseconds to a few hundred; around 100 stops the search stops after a
 * few seconds; from ~300 stops the budget ends the search first.
 */
export function serviceStallIterations(jobs: number): number {
  const n = Math.max(0, Math.floor(jobs));
  return Math.min(0xffffffff, Math.max(100, Math.ceil((n * n) / 10)));
}
