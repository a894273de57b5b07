/**
 * A route's full timeline (`steps`): the vehicle's start, each stop, its end, with the solver's times made
 * instants, the load on board after each step and each step's incoming leg in metres and seconds. Types
 * "pickup", "delivery" and "break" are reserved for shipments and breaks.
 */
import type { DateTime } from 'luxon';
import { utcClock } from '../../schedule/index.js';
import type { RouteTimes } from '../../solver/types.js';

export interface PlanStep {
  type: 'start' | 'stop' | 'end';
  /** The vehicle id for start and end, the stop id for a stop. */
  id: string;
  arrival: string;
  /** Only when service starts after the arrival (the vehicle waited for notBefore or a time window). */
  serviceStart?: string;
  departure: string;
  /** On board after the step, per capacity dimension ([] without capacities): the start carries every demand of the route. */
  load: number[];
  /** The leg that arrives at this step (0 for the start; 0 for the end of a route without an end point). */
  distanceM: number;
  durationS: number;
}

export interface StepsInput {
  departure: DateTime;
  vehicleId: string;
  stopIds: readonly string[];
  /** Per stop in visiting order, one value per capacity dimension. */
  demands: ReadonlyArray<readonly number[]>;
  dimensions: number;
  times: RouteTimes;
  /** Metres of the legs in order: start → first stop, …, last stop → end (when the vehicle has one). */
  legsM: readonly number[];
  hasEnd: boolean;
}

export function routeSteps(input: StepsInput): PlanStep[] {
  const { times, demands, dimensions } = input;
  const at = utcClock(input.departure);
  const load = Array.from({ length: dimensions }, (_, d) => demands.reduce((sum, q) => sum + (q[d] ?? 0), 0));
  const steps: PlanStep[] = [
    {
      type: 'start',
      id: input.vehicleId,
      arrival: at(times.departureS),
      departure: at(times.departureS),
      load: [...load],
      distanceM: 0,
      durationS: 0,
    },
  ];
  let leftAt = times.departureS;
  times.stops.forEach((t, k) => {
    demands[k]!.forEach((q, d) => (load[d]! -= q));
    steps.push({
      type: 'stop',
      id: input.stopIds[k]!,
      arrival: at(t.arrivalS),
      ...(t.waitS > 0 ? { serviceStart: at(t.startS) } : {}),
      departure: at(t.departureS),
      load: [...load],
      distanceM: Math.round(input.legsM[k] ?? 0),
      durationS: t.arrivalS - leftAt,
    });
    leftAt = t.departureS;
  });
  steps.push({
    type: 'end',
    id: input.vehicleId,
    arrival: at(times.endS),
    departure: at(times.endS),
    load: [...load],
    distanceM: input.hasEnd ? Math.round(input.legsM[times.stops.length] ?? 0) : 0,
    durationS: times.endS - leftAt,
  });
  return steps;
}
