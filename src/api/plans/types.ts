import type { LateStop, ScheduleEntry } from '../../schedule/index.js';
import type { UnassignedReason } from '../../solver/fleet-types.js';
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
}

/** The plan part of PlanResponse; billing fields are added by the handler. */
export interface PlanResult {
  routes: PlanRoute[];
  unassigned: UnassignedStop[];
  totals: PlanTotals;
  warnings?: RouteWarning[];
}

/** Geocoding, travel times, the fleet solve and the schedules behind one call. Throws DomainError on failure. */
export interface PlanOptimizer {
  /** `budgetMs`: the solve's budget when the call sets its own (an asynchronous plan's timeLimitSeconds). */
  plan(request: PlanRequest, context: CallContext, budgetMs?: number): Promise<PlanResult>;
  /** The solve budget a plan gets by the budget rule (src/calls/budget.ts) when it sets none. */
  budgetMs(request: PlanRequest): number;
}
