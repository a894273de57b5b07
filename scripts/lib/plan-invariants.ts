/**
 * What every answer of POST /api/v1/plans must satisfy, checked from the request and the answer alone
 * (plus the travel model the server used, to re-time every leg): each stop exactly once, capacities,
 * maxStops, allowedVehicles, shifts, notBefore, timeWindows, schedules that follow the legs, totals that add up.
 * Returns the problems found (none for a valid plan), so a test can assert deepEqual([]).
 */
import { DateTime } from 'luxon';
import type { RoutingProvider } from '../../src/geo/index.js';

type Json = any;
const PARIS = 'Europe/Paris';
const ms = (iso: string): number => Date.parse(iso);

/** HH:MM on the Paris day of `departure` (no DST edge in these tests). */
function parisTime(hhmm: string, departure: string): number {
  const day = DateTime.fromISO(departure, { setZone: true }).setZone(PARIS);
  const [h, m] = hhmm.split(':').map(Number);
  return day.set({ hour: h, minute: m, second: 0, millisecond: 0 }).toMillis();
}

export async function planProblems(request: Json, answer: Json, routing?: RoutingProvider): Promise<string[]> {
  const problems: string[] = [];
  const stops = new Map<string, Json>(request.stops.map((s: Json) => [s.id, s]));
  const vehicles = new Map<string, Json>(request.vehicles.map((v: Json) => [v.id, v]));
  const seen = [...answer.routes.flatMap((r: Json) => r.order), ...answer.unassigned.map((u: Json) => u.id)];
  if (seen.length !== stops.size || new Set(seen).size !== stops.size || seen.some((id) => !stops.has(id))) {
    problems.push(`each stop must be once in a route or unassigned: ${JSON.stringify(seen)}`);
  }
  const vehicleOrder = request.vehicles
    .map((v: Json) => v.id)
    .filter((id: string) => answer.routes.some((r: Json) => r.vehicleId === id));
  if (JSON.stringify(vehicleOrder) !== JSON.stringify(answer.routes.map((r: Json) => r.vehicleId)))
    problems.push('routes must follow the order of vehicles, one per used vehicle');
  const departure = request.departureTime as string;
  let lateStops = 0;
  let km = 0;
  for (const route of answer.routes) {
    const v = vehicles.get(route.vehicleId);
    const label = `route of ${route.vehicleId}`;
    if (route.order.length === 0) problems.push(`${label}: an unused vehicle has no route`);
    const served = route.order.map((id: string) => stops.get(id));
    const dims = request.vehicles.find((x: Json) => x.capacity)?.capacity.length ?? 0;
    const load = Array.from({ length: dims }, (_, d) =>
      served.reduce((t: number, s: Json) => t + (s.demand?.[d] ?? 0), 0),
    );
    if (JSON.stringify(load) !== JSON.stringify(route.load))
      problems.push(`${label}: load ${JSON.stringify(route.load)}, demands add up to ${JSON.stringify(load)}`);
    if (v.capacity && load.some((l: number, d: number) => l > v.capacity[d]))
      problems.push(`${label}: load ${JSON.stringify(load)} over capacity ${JSON.stringify(v.capacity)}`);
    if (v.maxStops !== undefined && route.order.length > v.maxStops)
      problems.push(`${label}: ${route.order.length} stops over maxStops ${v.maxStops}`);
    for (const s of served)
      if (s.allowedVehicles && !s.allowedVehicles.includes(v.id))
        problems.push(`${label}: serves ${s.id}, allowed only ${s.allowedVehicles}`);
    if (
      JSON.stringify(route.waypoints.map((w: Json) => w.id)) !== JSON.stringify(route.order) ||
      route.waypoints.some((w: Json, i: number) => w.order !== i + 1)
    )
      problems.push(`${label}: waypoints out of order`);
    if (JSON.stringify(route.schedule.map((e: Json) => e.colisId)) !== JSON.stringify(route.order))
      problems.push(`${label}: schedule out of order`);

    const expectedDepart = Math.max(ms(departure), v.shift?.start ? parisTime(v.shift.start, departure) : -Infinity);
    if (ms(route.departAt) !== Math.floor(expectedDepart / 1000) * 1000)
      problems.push(`${label}: departAt ${route.departAt}, expected ${new Date(expectedDepart).toISOString()}`);
    // identical coordinates are one point, as in the service (0 s between them)
    const keys = [v.start, ...served, ...(v.end ? [v.end] : [])].map((p: Json) => `${p.latitude},${p.longitude}`);
    const distinct = [...new Set(keys)];
    const matrix = routing
      ? (
          await routing.matrix(
            distinct.map((k) => ({ latitude: Number(k.split(',')[0]), longitude: Number(k.split(',')[1]) })),
            { avoidTolls: false },
          )
        ).durationsS
      : undefined;
    const legs = matrix
      ? keys.map((a) => keys.map((b) => matrix[distinct.indexOf(a)]![distinct.indexOf(b)]!))
      : undefined;
    let t = ms(route.departAt);
    let late = 0;
    route.schedule.forEach((entry: Json, i: number) => {
      const s = served[i];
      const arrival = ms(entry.arrivee);
      if (legs && arrival !== t + Math.round(legs[i]![i + 1]!) * 1000)
        problems.push(`${label}: arrival at ${s.id} ${entry.arrivee} does not follow its leg`);
      if (arrival < t) problems.push(`${label}: arrival at ${s.id} before leaving the previous stop`);
      const notBefore = s.notBefore ? parisTime(s.notBefore, departure) : -Infinity;
      const start = entry.serviceStart ? ms(entry.serviceStart) : arrival;
      // the earliest start: inside the first window (cut at notBefore) that has not ended at the arrival
      const windows: Array<[number, number]> = (s.timeWindows ?? [{ start: null, end: null }])
        .map((w: Json): [number, number] => [
          Math.max(notBefore, w.start ? parisTime(w.start, departure) : -Infinity),
          w.end ? parisTime(w.end, departure) : Infinity,
        ])
        .filter(([a, b]: [number, number]) => a <= b);
      const window = windows.find(([, end]) => arrival <= end);
      const earliest = window ? Math.max(arrival, window[0]) : undefined;
      if (earliest === undefined) problems.push(`${label}: ${s.id} reached after the end of its last time window`);
      else if (start !== earliest)
        problems.push(
          `${label}: service at ${s.id} starts at ${new Date(start).toISOString()}, expected ${new Date(earliest).toISOString()}`,
        );
      if (entry.serviceStart && !(start > arrival))
        problems.push(`${label}: serviceStart at ${s.id} is given only after an early arrival`);
      if (start < notBefore) problems.push(`${label}: service at ${s.id} starts before its notBefore`);
      if (s.deadline && arrival > parisTime(s.deadline, departure)) late++;
      t = start + Math.round(s.serviceSeconds ?? 0) * 1000;
    });
    if (v.end) {
      const back = ms(route.returnAt);
      if (legs && back !== t + Math.round(legs[served.length]![served.length + 1]!) * 1000)
        problems.push(`${label}: returnAt does not follow the last leg`);
      t = back;
    } else if (route.returnAt !== null) problems.push(`${label}: returnAt must be null without an end`);
    if (v.shift?.end && t > parisTime(v.shift.end, departure))
      problems.push(`${label}: done at ${new Date(t).toISOString()}, after its shift end ${v.shift.end}`);
    if (v.maxDurationMin !== undefined && t - ms(route.departAt) > v.maxDurationMin * 60000)
      problems.push(`${label}: ${(t - ms(route.departAt)) / 60000} min over maxDurationMin ${v.maxDurationMin}`);
    if (v.maxDistanceKm !== undefined && route.totalDistanceKm > v.maxDistanceKm + 0.005)
      problems.push(`${label}: ${route.totalDistanceKm} km over maxDistanceKm ${v.maxDistanceKm}`);
    if (legs && v.maxDrivingMin !== undefined) {
      const driving = served.length + (v.end ? 1 : 0);
      const drivingS = Array.from({ length: driving }, (_, i) => Math.round(legs[i]![i + 1]!)).reduce(
        (a, b) => a + b,
        0,
      );
      if (drivingS > v.maxDrivingMin * 60)
        problems.push(`${label}: ${drivingS} s driving over maxDrivingMin ${v.maxDrivingMin}`);
    }
    if (Math.abs(route.estimatedTimeMin - Math.round((t - ms(route.departAt)) / 6000) / 10) > 1e-9)
      problems.push(`${label}: estimatedTimeMin ${route.estimatedTimeMin}`);
    if ((route.lateStops?.length ?? 0) !== late)
      problems.push(`${label}: ${late} late stops, lateStops says ${route.lateStops?.length ?? 0}`);
    lateStops += late;
    km += route.totalDistanceKm;
    problems.push(...stepProblems(route, v, served, legs, label));
  }
  const totals = answer.totals;
  const expected = {
    stops: stops.size,
    assigned: stops.size - answer.unassigned.length,
    unassigned: answer.unassigned.length,
    vehiclesUsed: answer.routes.length,
    lateStops,
  };
  for (const [k, value] of Object.entries(expected))
    if (totals[k] !== value) problems.push(`totals.${k} ${totals[k]}, expected ${value}`);
  if (Math.abs(totals.totalDistanceKm - km) > 0.011)
    problems.push(`totals.totalDistanceKm ${totals.totalDistanceKm}, routes add up to ${km}`);
  for (const u of answer.unassigned)
    if (!u.message.includes(JSON.stringify(u.id))) problems.push(`unassigned ${u.id}: the message must name the stop`);
  return problems;
}

/** A route's steps: start, its stops in order with the schedule's times, end; loads falling by each demand; legs. */
function stepProblems(route: Json, v: Json, served: Json[], legs: number[][] | undefined, label: string): string[] {
  const problems: string[] = [];
  const steps: Json[] = route.steps ?? [];
  const types = steps.map((s) => s.type).join(',');
  if (types !== ['start', ...served.map(() => 'stop'), 'end'].join(','))
    return [`${label}: steps ${types}, expected start, ${served.length} stops, end`];
  const [start, end] = [steps[0], steps[steps.length - 1]];
  if (start.id !== v.id || end.id !== v.id) problems.push(`${label}: start and end steps must carry the vehicle id`);
  if (start.arrival !== route.departAt || start.departure !== route.departAt)
    problems.push(`${label}: start step not at departAt`);
  if (JSON.stringify(start.load) !== JSON.stringify(route.load))
    problems.push(`${label}: the start step must carry the route's load`);
  steps.slice(1, -1).forEach((step, i) => {
    const entry = route.schedule[i];
    if (step.id !== route.order[i] || step.arrival !== entry.arrivee || step.serviceStart !== entry.serviceStart)
      problems.push(`${label}: step ${i + 1} differs from the schedule`);
    const expected = steps[i].load.map((l: number, d: number) => l - (served[i].demand?.[d] ?? 0));
    if (JSON.stringify(step.load) !== JSON.stringify(expected)) problems.push(`${label}: load after ${step.id}`);
    const startS = ms(step.serviceStart ?? step.arrival);
    if (ms(step.departure) !== startS + Math.round(served[i].serviceSeconds ?? 0) * 1000)
      problems.push(`${label}: departure from ${step.id}`);
  });
  const back = v.end ? route.returnAt : steps[steps.length - 2].departure;
  if (end.arrival !== back) problems.push(`${label}: end step at ${end.arrival}, expected ${back}`);
  const metres = steps.reduce((sum, s) => sum + s.distanceM, 0);
  if (Math.abs(metres / 1000 - route.totalDistanceKm) > 0.01 + steps.length * 0.0005)
    problems.push(`${label}: steps add up to ${metres} m, totalDistanceKm ${route.totalDistanceKm}`);
  steps.slice(1).forEach((step, k) => {
    if (ms(step.arrival) - ms(steps[k].departure) !== step.durationS * 1000)
      problems.push(`${label}: durationS of the leg to ${step.id}`);
    if (legs && (k < served.length || v.end) && step.durationS !== Math.round(legs[k]![k + 1]!))
      problems.push(`${label}: durationS to ${step.id} is not its leg`);
  });
  return problems;
}
