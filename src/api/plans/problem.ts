/**
 * From a plan request and its resolved points to the fleet solver's problem:
 * one travel matrix over the places of the call (six vans at one depot are one
 * row: src/calls/places.ts), and every Europe/Paris time as whole seconds after
 * the departure.
 *
 * Time rules: vehicle k leaves at max(departure, its shift.start); its shift.end bounds its return
 * (or the end of its last service when it has no end); a stop's notBefore is the earliest start of
 * its service (the vehicle waits), its deadline a soft limit (lateness is reported, as optimize); its
 * timeWindows are hard (service starts inside one; the solver cuts them at notBefore).
 * All of them are on the Paris calendar day of the departure. A shift that ended before the
 * departure leaves its vehicle no time: its stops go to other vehicles or are unassigned ("shift").
 */
import type { DateTime } from 'luxon';
import type { TravelMatrix } from '../../geo/index.js';
import { deadlineToOffsetS, timeOfDayInstant, type OverlapRule } from '../../schedule/index.js';
import type { FleetJob, FleetProblem, FleetVehicle } from '../../solver/fleet-types.js';
import { solverBreaks } from './breaks.js';
import { hasCosts, planObjective } from './costs.js';
import type { LabelledLocation } from '../../calls/locations.js';
import { wholeRowMajor } from '../../calls/steps.js';
import type { PlanRequest } from './schema.js';
import { planVisits, shipmentPairs, type PlanVisit } from './visits.js';

/** Capacity of a vehicle without one when others have one: more than any call can ask (1000 stops × 1e9). */
const UNLIMITED = 1e13;

/** Where each location of the request lies in the list of resolved locations. */
export interface PlanLayout {
  /** In resolution order: each vehicle's start then its end (if any), then the stops. */
  labelled: LabelledLocation[];
  vehicleStart: number[];
  vehicleEnd: Array<number | undefined>;
  /** Per visit (the solver's job j): its index in `labelled`. */
  stop: number[];
  /** The stops, then each shipment's pickup and delivery (src/api/plans/visits.ts). */
  visits: PlanVisit[];
}

export function planLayout(request: PlanRequest): PlanLayout {
  const labelled: LabelledLocation[] = [];
  const vehicleStart: number[] = [];
  const vehicleEnd: Array<number | undefined> = [];
  request.vehicles.forEach((v, k) => {
    vehicleStart.push(labelled.length);
    labelled.push({
      label: `vehicles[${k}].start (id ${JSON.stringify(v.id)})`,
      role: 'start',
      vehicleId: v.id,
      location: v.start,
    });
    vehicleEnd.push(v.end === undefined ? undefined : labelled.length);
    if (v.end !== undefined)
      labelled.push({
        label: `vehicles[${k}].end (id ${JSON.stringify(v.id)})`,
        role: 'end',
        vehicleId: v.id,
        location: v.end,
      });
  });
  const visits = planVisits(request);
  const stop = visits.map((_, i) => labelled.length + i);
  labelled.push(
    ...visits.map((v): LabelledLocation => ({ label: v.label, role: 'stop', stopId: v.id, location: v.location })),
  );
  return { labelled, vehicleStart, vehicleEnd, stop, visits };
}

/** How many capacity dimensions the call has (validation makes every capacity and demand this long); 0 without capacities. */
export function capacityDimensions(request: PlanRequest): number {
  return request.vehicles.find((v) => v.capacity !== undefined)?.capacity?.length ?? 0;
}

const offsetS = (time: string, departure: DateTime, overlap: OverlapRule): number =>
  Math.round((timeOfDayInstant(time, departure, overlap).toMillis() - departure.toMillis()) / 1000);

/** Seconds after the departure at which vehicle `v` leaves, and by which it must be done (undefined: no limit). */
export function vehicleWindow(
  v: PlanRequest['vehicles'][number],
  departure: DateTime,
): { startS: number; endS?: number } {
  const startS = v.shift?.start === undefined ? 0 : Math.max(0, offsetS(v.shift.start, departure, 'earlier'));
  if (v.shift?.end === undefined) return { startS };
  return { startS, endS: Math.max(startS, offsetS(v.shift.end, departure, 'later')) };
}

/** The fleet problem: `placeOf[i]` is the place (matrix row) of resolved location i; `matrix` is over the places. */
export function fleetProblem(
  request: PlanRequest,
  layout: PlanLayout,
  placeOf: readonly number[],
  matrix: TravelMatrix,
  departure: DateTime,
): FleetProblem {
  const size = matrix.durationsS.length;
  const travel = wholeRowMajor(matrix.durationsS);
  const dimensions = capacityDimensions(request);
  const vehicleIndex = new Map(request.vehicles.map((v, k) => [v.id, k]));
  const { objective, costs } = planObjective(request);
  const vehicles = request.vehicles.map((v, k): FleetVehicle => {
    const window = vehicleWindow(v, departure);
    const end = layout.vehicleEnd[k];
    return {
      start: placeOf[layout.vehicleStart[k]!]!,
      ...(end !== undefined ? { end: placeOf[end]! } : {}),
      shiftStart: window.startS,
      ...(window.endS !== undefined ? { shiftEnd: window.endS } : {}),
      ...(dimensions > 0 ? { capacity: v.capacity ?? new Array<number>(dimensions).fill(UNLIMITED) } : {}),
      ...(v.maxStops !== undefined ? { maxStops: v.maxStops } : {}),
      ...(v.maxDurationMin !== undefined ? { maxDuration: v.maxDurationMin * 60 } : {}),
      ...(v.maxDrivingMin !== undefined ? { maxDriving: v.maxDrivingMin * 60 } : {}),
      ...(v.maxDistanceKm !== undefined ? { maxDistance: Math.round(v.maxDistanceKm * 1000) } : {}),
      ...(v.breaks !== undefined && v.breaks.length > 0 ? { breaks: solverBreaks(v, departure).breaks } : {}),
      ...(costs[k] !== undefined ? { costs: costs[k] } : {}),
    };
  });
  const jobs = layout.visits.map((s, i): FleetJob => ({
    location: placeOf[layout.stop[i]!]!,
    service: Math.round(s.serviceSeconds ?? 0),
    ...(s.notBefore !== undefined ? { ready: Math.max(0, offsetS(s.notBefore, departure, 'earlier')) } : {}),
    // may be negative (already past): the solver counts it from 0 in its search, and reports the lateness against it
    ...(s.deadline !== undefined ? { deadline: deadlineToOffsetS(s.deadline, departure) } : {}),
    ...(s.demand !== undefined ? { demand: s.demand } : {}),
    ...(s.allowedVehicles !== undefined
      ? { allowedVehicles: s.allowedVehicles.map((id) => vehicleIndex.get(id)!) }
      : {}),
    ...(s.timeWindows !== undefined ? { windows: windowOffsets(s.timeWindows, departure) } : {}),
    ...(s.priority !== undefined && s.priority > 0 ? { priority: s.priority } : {}),
  }));
  // maxDistanceKm and perKm count road metres; without costs the objective keeps the travel times
  const metres = () => wholeRowMajor(matrix.distancesM);
  const limitDistance = request.vehicles.some((v) => v.maxDistanceKm !== undefined) ? metres() : undefined;
  const distance = hasCosts(request) ? (limitDistance ?? metres()) : undefined;
  const shipments = shipmentPairs(request);
  return {
    locations: size,
    travel,
    vehicles,
    jobs,
    ...(limitDistance ? { limitDistance } : {}),
    ...(distance ? { distance } : {}),
    ...(objective ? { objective } : {}),
    ...(shipments.length > 0 ? { shipments } : {}),
  };
}

/**
 * A stop's time windows as [start, end] seconds after the departure: a window that ended before the departure is
 * dropped (none left: the solver leaves the stop unassigned, reason timeWindows), one under way starts at 0.
 */
export function windowOffsets(
  windows: ReadonlyArray<{ start: string; end: string }>,
  departure: DateTime,
): Array<[number, number]> {
  return windows
    .map((w): [number, number] => [
      Math.max(0, offsetS(w.start, departure, 'earlier')),
      offsetS(w.end, departure, 'later'),
    ])
    .filter(([start, end]) => end >= start);
}

/** The plan's budget: `msPerStop` per stop, at least 200 ms, at most `ceilingMs`. */
export function planTimeLimitMs(stops: number, settings: { ceilingMs: number; msPerStop: number }): number {
  return Math.min(settings.ceilingMs, Math.max(200, settings.msPerStop * stops));
}
