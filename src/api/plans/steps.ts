/**
 * A route's full timeline (`steps`): the vehicle's start, each stop, its end, with the solver's times made
 * instants, the load on board after each step and each step's incoming leg in metres and seconds. A shipment's
 * ends are "pickup" (its demand goes on board) and "delivery" (it comes off); a "break" is a vehicle break where the solver took it
 * (solver-rs/src/fleet/breaks.rs): before the next leg, on arriving at the next stop, or at the end point.
 */
import type { DateTime } from 'luxon';
import { utcClock } from '../../schedule/index.js';
import type { RouteTimes } from '../../solver/types.js';

export interface PlanStep {
  type: 'start' | 'stop' | 'pickup' | 'delivery' | 'break' | 'end';
  /** The vehicle id for start and end, the stop id for a stop, the shipment id for a pickup or delivery, the break id for a break. */
  id: string;
  arrival: string;
  /** Only when service starts after the arrival (the vehicle waited for notBefore or a time window). */
  serviceStart?: string;
  departure: string;
  /** On board after the step, per capacity dimension ([] without capacities): the start carries every stop's demand of the route; a pickup adds its shipment's, a delivery takes it off. */
  load: number[];
  /** The leg that arrives at this step (0 for the start and a break; 0 for the end of a route without an end point). */
  distanceM: number;
  durationS: number;
}

export interface StepsInput {
  departure: DateTime;
  vehicleId: string;
  stopIds: readonly string[];
  /** Per stop in visiting order: a stop, or a shipment's pickup or delivery. */
  kinds: ReadonlyArray<'stop' | 'pickup' | 'delivery'>;
  /** Per stop in visiting order, one value per capacity dimension. */
  demands: ReadonlyArray<readonly number[]>;
  dimensions: number;
  times: RouteTimes;
  /** Metres of the legs in order: start → first stop, …, last stop → end (when the vehicle has one). */
  legsM: readonly number[];
  hasEnd: boolean;
  /** The vehicle's break ids by the solver's break index (`times.breaks[].index`). */
  breakIds?: readonly string[];
}

export function routeSteps(input: StepsInput): PlanStep[] {
  const { times, demands, dimensions } = input;
  const at = utcClock(input.departure);
  const { kinds } = input;
  const load = Array.from({ length: dimensions }, (_, d) =>
    demands.reduce((sum, q, k) => sum + (kinds[k] === 'stop' ? (q[d] ?? 0) : 0), 0),
  );
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
  const breaks = times.breaks ?? [];
  let nextBreak = 0;
  /** The breaks taken before step `k` (stop k, or the end when k = stops): a break before the leg moves its start. */
  const breaksBefore = (k: number) => {
    for (; nextBreak < breaks.length && breaks[nextBreak]!.afterStops === k; nextBreak++) {
      const b = breaks[nextBreak]!;
      steps.push({
        type: 'break',
        id: input.breakIds?.[b.index] ?? String(b.index),
        arrival: at(b.startS),
        departure: at(b.endS),
        load: [...load],
        distanceM: 0,
        durationS: 0,
      });
      if (b.startS < b.nextArrivalS) leftAt = Math.max(leftAt, b.endS);
    }
  };
  times.stops.forEach((t, k) => {
    breaksBefore(k);
    const kind = kinds[k]!;
    demands[k]!.forEach((q, d) => (load[d]! += kind === 'pickup' ? q : -q));
    steps.push({
      type: kind,
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
  breaksBefore(times.stops.length);
  // breaks at the end point come before the route's end (endS): the vehicle arrived there earlier
  const atEnd = breaks.filter((b) => b.afterStops === times.stops.length && b.startS >= b.nextArrivalS);
  const arrivedS = atEnd.length > 0 ? atEnd[0]!.nextArrivalS : times.endS;
  steps.push({
    type: 'end',
    id: input.vehicleId,
    arrival: at(arrivedS),
    departure: at(times.endS),
    load: [...load],
    distanceM: input.hasEnd ? Math.round(input.legsM[times.stops.length] ?? 0) : 0,
    durationS: arrivedS - leftAt,
  });
  return steps;
}
