import type { LateStop, ScheduleEntry } from '../../schedule/index.js';
import type { FleetProgress, UnassignedReason } from '../../solver/fleet-types.js';
import type { RouteWarning, Waypoint } from '../../calls/answer.js';
import type { CallContext } from '../../calls/charged-call.js';
import type { RouteGeometry } from '../../calls/geometry.js';
import type { PlanRequest } from './schema.js';
import type { PlanStep } from './steps.js';

/** One vehicle's route: optimize's route fields plus the vehicle and its load. */
export interface PlanRoute extends Partial<RouteGeometry> {
  vehicleId: string;
  order: string[];
  waypoints: Waypoint[];
  schedule: ScheduleEntry[];
  departAt: string;
  returnAt: string | null;
  lateStops: LateStop[] | null;
  totalDistanceKm: number;
  estimatedTimeMin: number;
  /** Sum of the demands served, per capacity dimension; [] without capacities. */
  load: number[];
  /** The full timeline: start, stops, end. */
  steps: PlanStep[];
  /** Only when some vehicle of the call has costs: what this route costs (src/api/plans/costs.ts). */
  cost?: number;
}

export interface UnassignedStop {
  id: string;
  reason: UnassignedReason;
  message: string;
}

export interface PlanTotals {
  stops: number;
  assigned: number;
  unassigned: number;
  vehiclesUsed: number;
  totalDistanceKm: number;
  estimatedTimeMin: number;
  lateStops: number;
  /** Only when some vehicle of the call has costs: the routes' costs summed. */
  cost?: number;
}

/** The plan part of PlanResponse; billing fields are added by the handler. */
export interface PlanResult {
  routes: PlanRoute[];
  unassigned: UnassignedStop[];
  totals: PlanTotals;
  warnings?: RouteWarning[];
}

/** An asynchronous plan's hold on its solve: the solver's new best plans as they come, and a stop that keeps the best. */
export interface PlanLive {
  onProgress?: (progress: FleetProgress) => void;
  /** Ends the search early; the plan is then built from its best so far (unlike the call's signal, which fails it). */
  stop?: AbortSignal;
}

/** Geocoding, travel times, the fleet solve and the schedules behind one call. Throws DomainError on failure. */
export interface PlanOptimizer {
  /**
   * `budgetMs`: the solve's budget when the call sets its own (an asynchronous plan's timeLimitSeconds); `live`:
   * an asynchronous plan watches its solve.
   */
  plan(request: PlanRequest, context: CallContext, budgetMs?: number, live?: PlanLive): Promise<PlanResult>;
  /** The solve budget a plan gets by the budget rule (src/calls/budget.ts) when it sets none. */
  budgetMs(request: PlanRequest): number;
}
