/**
 * The answer of a plan: per used vehicle, its stops in the solver's order (the
 * stops of one place in input order, as optimize) with the solver's times, made
 * instants, Paris deadlines and minutes by the schedule module, and the legs'
 * distances; the unassigned stops with their reason in words; the totals.
 */
import type { DateTime } from 'luxon';
import type { TravelMatrix } from '../../geo/index.js';
import { buildSchedule, secondsToMin1, type ScheduleResult } from '../../schedule/index.js';
import type { FleetResult, FleetRoute, UnassignedReason } from '../../solver/fleet-types.js';
import { warningsField, waypointsOf } from '../../calls/answer.js';
import type { ResolvedLocation } from '../../calls/locations.js';
import { capacityDimensions, type PlanLayout } from './problem.js';
import type { PlanRequest } from './schema.js';
import type { PlanResult, PlanRoute, UnassignedStop } from './types.js';
import { routeSteps } from './steps.js';
import { solverBreaks } from './breaks.js';
import { routeMatrixView } from './route-matrix.js';
import { hasCosts, roundMoney, routeCost } from './costs.js';

export interface PlanAnswerInput {
  request: PlanRequest;
  layout: PlanLayout;
  locations: readonly ResolvedLocation[];
  /** The place (matrix row) of each resolved location. */
  placeOf: readonly number[];
  distancesM: TravelMatrix['distancesM'];
  departure: DateTime;
  solution: FleetResult;
}

export function planAnswer(input: PlanAnswerInput): PlanResult {
  const { request, solution } = input;
  const built = solution.routes.map((route) => routeOf(input, route));
  const costed = hasCosts(request);
  const { visits } = input.layout;
  // a shipment is unassigned whole: listed once, by its id
  const unassigned = [...solution.unassigned]
    .sort((a, b) => a.job - b.job)
    .filter(({ job }) => visits[job]!.kind !== 'delivery')
    .map(({ job, reason }): UnassignedStop => ({
      id: visits[job]!.id,
      reason,
      message: unassignedMessage(visits[job]!.id, reason, visits[job]!.kind === 'pickup'),
    }));
  // totals count stops as billing does: a shipment is two
  return {
    routes: built.map((b) => (costed ? { ...b.route, cost: roundMoney(b.cost) } : b.route)),
    unassigned,
    totals: {
      stops: visits.length,
      assigned: visits.length - solution.unassigned.length,
      unassigned: solution.unassigned.length,
      vehiclesUsed: built.length,
      totalDistanceKm: Math.round(built.reduce((km, b) => km + b.route.totalDistanceKm, 0) * 100) / 100,
      estimatedTimeMin: secondsToMin1(built.reduce((s, b) => s + b.schedule.durationS, 0)),
      lateStops: built.reduce((n, b) => n + (b.route.lateStops?.length ?? 0), 0),
      ...(costed ? { cost: roundMoney(built.reduce((sum, b) => sum + b.cost, 0)) } : {}),
    },
    ...warningsField(input.locations),
  };
}

/**
 * One vehicle's route through `jobs` (stop indices in visiting order; the solver has already put the stops of
 * one place in input order, where that is no later: solver-rs/src/fleet/same_place.rs) with the solver's times.
 */
function routeOf(
  input: PlanAnswerInput,
  { vehicle, jobs, times }: FleetRoute,
): { route: PlanRoute; schedule: ScheduleResult; cost: number } {
  const { request, layout, locations, placeOf } = input;
  const v = request.vehicles[vehicle]!;
  const end = layout.vehicleEnd[vehicle];
  // the schedule module's matrix layout: [start, stops in visiting order, end?]
  const nodes = [
    placeOf[layout.vehicleStart[vehicle]!]!,
    ...jobs.map((j) => placeOf[layout.stop[j]!]!),
    ...(end !== undefined ? [placeOf[end]!] : []),
  ];
  const stops = jobs.map((j) => layout.visits[j]!);
  const schedule = buildSchedule({
    departure: input.departure,
    order: jobs.map((_, position) => position),
    stops: stops.map((s) => ({ id: s.id, deadline: s.deadline })),
    times: times!,
    distancesM: routeMatrixView(nodes, input.distancesM),
    hasEnd: end !== undefined,
  });
  const dimensions = capacityDimensions(request);
  // a shipment's demand counted once (at its pickup)
  const load = Array.from({ length: dimensions }, (_, d) =>
    stops.reduce((sum, s) => sum + (s.kind === 'delivery' ? 0 : (s.demand?.[d] ?? 0)), 0),
  );
  const legsM = nodes.slice(1).map((to, k) => input.distancesM[nodes[k]!]![to]!);
  return {
    schedule,
    cost: routeCost(
      v,
      schedule.durationS,
      legsM.reduce((sum, m) => sum + m, 0),
    ),
    route: {
      vehicleId: v.id,
      order: stops.map((s) => s.id),
      waypoints: waypointsOf(jobs.map((j) => locations[layout.stop[j]!]!)),
      schedule: schedule.schedule,
      departAt: schedule.departAt,
      returnAt: schedule.returnAt,
      lateStops: schedule.lateStops,
      totalDistanceKm: schedule.totalDistanceKm,
      estimatedTimeMin: schedule.estimatedTimeMin,
      load,
      steps: routeSteps({
        departure: input.departure,
        vehicleId: v.id,
        stopIds: stops.map((s) => s.id),
        kinds: stops.map((s) => s.kind),
        demands: stops.map((s) => s.demand ?? []),
        dimensions,
        times: times!,
        legsM,
        hasEnd: end !== undefined,
        breakIds: solverBreaks(v, input.departure).ids,
      }),
    },
  };
}

const FIXES: Record<UnassignedReason, string> = {
  capacity:
    'its demand, or one more stop, fits in no vehicle allowed to serve it (capacity or maxStops): add a vehicle, raise a capacity or maxStops, or split the stop',
  shift:
    "no vehicle allowed to serve it can reach it after its notBefore and finish within its shift: widen a shift or the stop's notBefore, or add a vehicle",
  allowedVehicles: 'none of the vehicles of this call may serve it: check its allowedVehicles',
  unreachable:
    'no vehicle allowed to serve it can drive to it, or from it to its end, on the road network: check its position',
  priority:
    "a vehicle could serve it, but the plan gave that vehicle's room and time to stops of higher priority: raise its priority, or add a vehicle",
  routeLimit:
    "it fits a vehicle allowed to serve it only beyond that vehicle's maxDurationMin, maxDrivingMin or maxDistanceKm: raise a limit or add a vehicle",
  timeWindows:
    'every one of its timeWindows ends before any vehicle allowed to serve it can get there (or before the departure): widen or move its timeWindows, or start a shift earlier',
};

export function unassignedMessage(id: string, reason: UnassignedReason, shipment = false): string {
  return shipment
    ? `Shipment ${JSON.stringify(id)} was not planned (neither its pickup nor its delivery): ${FIXES[reason]}.`
    : `Stop ${JSON.stringify(id)} was not planned: ${FIXES[reason]}.`;
}
