/**
 * The independent checker of fleet plans: every rule of the model simulated
 * route by route, outside the solver (the benches and the solver tests both
 * use it, so each rule is written once on this side). Numbers are plain
 * doubles: integer matrices (the service) or unrounded Euclidean distances
 * (the Solomon bench) go through the same code.
 */
import type { FleetProblem } from '../../src/solver/fleet-types.js';

export interface CheckVehicle {
  start: number;
  /** Absent: the route ends after its last service. */
  end?: number;
  shiftStart: number;
  shiftEnd?: number;
  capacity: number[];
  maxStops?: number;
}

export interface CheckJob {
  location: number;
  service: number;
  ready: number;
  due?: number;
  deadline?: number;
  demand: number[];
  /** A backhaul: loaded at this job and carried to the route's end (plain jobs only). */
  pickup?: number[];
  allowedVehicles?: number[];
}

export interface CheckModel {
  /** Travel time between locations; < 0 = unreachable. */
  travel(a: number, b: number): number;
  distance(a: number, b: number): number;
  vehicles: CheckVehicle[];
  jobs: CheckJob[];
  /** Pickup-and-delivery pairs (job indices): same route, pickup first; `demand` loaded at the pickup, unloaded at the delivery. */
  shipments?: ReadonlyArray<{ pickup: number; delivery: number }>;
}

export interface RouteSimulation {
  /** Service start per job (earliest schedule from the shift start). */
  starts: number[];
  /** Arrival at the end (or the last departure when open). */
  back: number;
  duration: number;
  distance: number;
  lateness: number;
  /** On board at departure: the plain jobs' demands. */
  load: number[];
  /** The most on board at any point of the route, per dimension. */
  peak: number[];
}

/** Per job its shipment: the other end and whether it is the pickup. */
function pairsOf(m: CheckModel): Map<number, { other: number; pickup: boolean }> {
  const pairs = new Map<number, { other: number; pickup: boolean }>();
  for (const s of m.shipments ?? []) {
    pairs.set(s.pickup, { other: s.delivery, pickup: true });
    pairs.set(s.delivery, { other: s.pickup, pickup: false });
  }
  return pairs;
}

export class PlanViolation extends Error {
  override name = 'PlanViolation';
}

/** Simulate one route; throws PlanViolation on the first broken rule. */
export function simulateRoute(m: CheckModel, v: number, jobs: readonly number[]): RouteSimulation {
  const veh = m.vehicles[v];
  if (!veh) throw new PlanViolation(`no vehicle ${v}`);
  if (veh.maxStops !== undefined && jobs.length > veh.maxStops)
    throw new PlanViolation(`vehicle ${v}: ${jobs.length} stops above maxStops ${veh.maxStops}`);
  const pairs = pairsOf(m);
  const dims = Math.max(
    veh.capacity.length,
    ...jobs.map((j) => Math.max(m.jobs[j]?.demand.length ?? 0, m.jobs[j]?.pickup?.length ?? 0)),
  );
  const amount = (q: number[], d: number) => q[d] ?? 0;
  // on board at departure: every plain job's delivery; then checked after every visit
  const load = Array.from({ length: dims }, (_, d) =>
    jobs.reduce((s, j) => s + (pairs.has(j) || !m.jobs[j] ? 0 : amount(m.jobs[j]!.demand, d)), 0),
  );
  const onBoard = [...load];
  const peak = [...load];
  const checkLoad = (where: string) =>
    onBoard.forEach((l, d) => {
      peak[d] = Math.max(peak[d]!, l);
      if (l > (veh.capacity[d] ?? 0))
        throw new PlanViolation(
          `vehicle ${v}: load ${l} above capacity ${veh.capacity[d] ?? 0} in dimension ${d} ${where}`,
        );
    });
  checkLoad('at departure');
  const starts: number[] = [];
  let t = veh.shiftStart;
  let at = veh.start;
  let distance = 0;
  let lateness = 0;
  const arc = (a: number, b: number) => {
    const tt = m.travel(a, b);
    if (tt < 0) throw new PlanViolation(`vehicle ${v}: no way from location ${a} to ${b}`);
    distance += m.distance(a, b);
    return tt;
  };
  for (const [k, j] of jobs.entries()) {
    const job = m.jobs[j];
    if (!job) throw new PlanViolation(`vehicle ${v}: no job ${j}`);
    if (job.allowedVehicles && !job.allowedVehicles.includes(v))
      throw new PlanViolation(`job ${j} is not allowed on vehicle ${v}`);
    const pair = pairs.get(j);
    if (pair) {
      const other = jobs.indexOf(pair.other);
      if (other < 0) throw new PlanViolation(`vehicle ${v}: job ${j}'s shipment partner ${pair.other} is elsewhere`);
      if (pair.pickup !== other > k)
        throw new PlanViolation(
          `vehicle ${v}: the delivery of shipment ${pair.pickup ? j : pair.other} before its pickup`,
        );
    }
    t = Math.max(t + arc(at, job.location), job.ready);
    if (job.due !== undefined && t > job.due)
      throw new PlanViolation(`vehicle ${v}: job ${j} served at ${t} after its due ${job.due}`);
    if (job.deadline !== undefined && t > job.deadline) lateness += t - job.deadline;
    starts.push(t);
    t += job.service;
    at = job.location;
    for (let d = 0; d < dims; d++) {
      if (!pair) onBoard[d] += amount(job.pickup ?? [], d) - amount(job.demand, d);
      else onBoard[d] += pair.pickup ? amount(job.demand, d) : -amount(job.demand, d);
    }
    checkLoad(`after job ${j}`);
  }
  if (veh.end !== undefined) t += arc(at, veh.end);
  if (veh.shiftEnd !== undefined && t > veh.shiftEnd)
    throw new PlanViolation(`vehicle ${v}: back at ${t} after its shift end ${veh.shiftEnd}`);
  return { starts, back: t, duration: t - veh.shiftStart, distance, lateness, load, peak };
}

/** Check a whole plan: each vehicle at most once, every job exactly once in a route or unassigned, every route valid. */
export function checkPlan(
  m: CheckModel,
  routes: ReadonlyArray<{ vehicle: number; jobs: readonly number[] }>,
  unassigned: readonly number[] = [],
): RouteSimulation[] {
  const seen = new Uint8Array(m.jobs.length);
  const vehicles = new Set<number>();
  const mark = (j: number) => {
    if (!Number.isInteger(j) || j < 0 || j >= m.jobs.length) throw new PlanViolation(`no job ${j}`);
    if (seen[j]) throw new PlanViolation(`job ${j} appears twice`);
    seen[j] = 1;
  };
  const sims = routes.map((r) => {
    if (vehicles.has(r.vehicle)) throw new PlanViolation(`vehicle ${r.vehicle} has two routes`);
    vehicles.add(r.vehicle);
    r.jobs.forEach(mark);
    return simulateRoute(m, r.vehicle, r.jobs);
  });
  unassigned.forEach(mark);
  const missing = seen.indexOf(0);
  if (missing >= 0) throw new PlanViolation(`job ${missing} is neither in a route nor unassigned`);
  // a shipment in a route has both ends there (simulateRoute); an unassigned one must be unassigned whole
  const out = new Set(unassigned);
  for (const s of m.shipments ?? [])
    if (out.has(s.pickup) !== out.has(s.delivery))
      throw new PlanViolation(`shipment ${s.pickup}-${s.delivery} is half-assigned`);
  return sims;
}

/** The checker's model of a solver problem (integer matrices). */
export function modelOf(p: FleetProblem): CheckModel {
  const n = p.locations;
  const dist = p.distance ?? p.travel;
  return {
    travel: (a, b) => (a === b ? 0 : p.travel[a * n + b]),
    distance: (a, b) => (a === b ? 0 : dist[a * n + b]),
    vehicles: p.vehicles.map((v) => ({
      start: v.start,
      end: v.end,
      shiftStart: v.shiftStart ?? 0,
      shiftEnd: v.shiftEnd,
      capacity: v.capacity ?? [],
      maxStops: v.maxStops,
    })),
    jobs: p.jobs.map((j) => ({
      location: j.location,
      service: j.service ?? 0,
      ready: j.ready ?? 0,
      due: j.due,
      deadline: j.deadline,
      demand: j.demand ?? [],
      pickup: j.pickup,
      allowedVehicles: j.allowedVehicles,
    })),
    shipments: p.shipments,
  };
}
