/**
 * Solomon VRPTW instances for the fleet bench and tests: the parser, the
 * scaled integer problem the solver works on (as solver-rs/src/fleet/solomon.rs
 * builds it for the native bench), and the check of a plan in unrounded
 * doubles through the shared plan checker (fleet-check.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { DISTANCE_OBJECTIVE, type FleetProblem } from '../../src/solver/fleet-types.js';
import { checkPlan, type CheckModel } from './fleet-check.js';

/** Fixed-point scale of times and distances inside the solver (travel = ceil, distance = round). */
export const SCALE = 100_000;
/** Vehicle cost of the vehicles-first objective (above any scaled total distance). */
export const VEHICLE_COST = 1_000_000_000_000;

export interface SolomonCustomer {
  number: number;
  x: number;
  y: number;
  demand: number;
  ready: number;
  due: number;
  service: number;
}
export interface SolomonInstance {
  name: string;
  vehicles: number;
  capacity: number;
  /** [0] is the depot. */ nodes: SolomonCustomer[];
}
/**
 * Best known values. Solomon's bks.csv has the hierarchical best (vehicles, then distance) and the distance-only
 * optimum; the Gehring–Homberger one (12th DIMACS challenge) only the distance-only best known (vehicles and
 * distance are NaN there).
 */
export interface BestKnown {
  vehicles: number;
  distance: number;
  distanceOnly: number;
}

/**
 * How arcs are measured. `solomon`: unrounded Euclidean (the hierarchical literature), with totals also reported
 * with each arc truncated to one decimal. `dimacs`: the 12th DIMACS challenge's convention — each arc is the
 * Euclidean distance truncated to one decimal, for travel times and distances alike, so a plan is solved and
 * checked on the truncated arcs.
 */
export type ArcConvention = 'solomon' | 'dimacs';

export function parseSolomon(text: string): SolomonInstance {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const name = lines.shift();
  if (!name) throw new Error('empty file');
  let fleet: [number, number] | null = null;
  const nodes: SolomonCustomer[] = [];
  for (const line of lines) {
    const words = line.split(/\s+/);
    const nums = words.map(Number);
    if (nums.some((x) => !Number.isFinite(x))) continue; // a header line
    if (fleet === null && nums.length === 2) fleet = [nums[0], nums[1]];
    else if (nums.length === 7)
      nodes.push({
        number: nums[0],
        x: nums[1],
        y: nums[2],
        demand: nums[3],
        ready: nums[4],
        due: nums[5],
        service: nums[6],
      });
    else throw new Error(`unexpected line: ${line}`);
  }
  if (!fleet) throw new Error('no VEHICLE block');
  if (nodes.length < 2 || nodes.some((c, i) => c.number !== i)) throw new Error('customer rows must be numbered 0..n');
  return { name, vehicles: fleet[0], capacity: fleet[1], nodes };
}

export function euclid(inst: SolomonInstance, a: number, b: number): number {
  const p = inst.nodes[a];
  const q = inst.nodes[b];
  return Math.sqrt((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y));
}

/** An arc truncated to one decimal (the DIMACS convention). */
export function truncatedArc(inst: SolomonInstance, a: number, b: number): number {
  return Math.floor(euclid(inst, a, b) * 10) / 10;
}

/** The solver's problem: location 0 is the depot, job j is customer j + 1. */
export function solomonProblem(
  inst: SolomonInstance,
  vehiclesFirst = false,
  convention: ArcConvention = 'solomon',
): FleetProblem {
  const m = inst.nodes.length;
  const travel = new Int32Array(m * m);
  const distance = new Int32Array(m * m);
  for (let a = 0; a < m; a++) {
    for (let b = 0; b < m; b++) {
      if (convention === 'dimacs') {
        // whole tenths times SCALE: exact in integers, travel and distance equal
        const e = Math.floor(euclid(inst, a, b) * 10) * (SCALE / 10);
        travel[a * m + b] = e;
        distance[a * m + b] = e;
      } else {
        const e = euclid(inst, a, b) * SCALE;
        travel[a * m + b] = Math.ceil(e);
        distance[a * m + b] = Math.round(e);
      }
    }
  }
  const scaled = (x: number) => Math.round(x * SCALE);
  const depot = inst.nodes[0];
  return {
    locations: m,
    travel,
    distance,
    vehicles: Array.from({ length: inst.vehicles }, () => ({
      start: 0,
      end: 0,
      shiftStart: scaled(depot.ready),
      shiftEnd: scaled(depot.due),
      capacity: [inst.capacity],
    })),
    jobs: inst.nodes.slice(1).map((c, j) => ({
      location: j + 1,
      service: scaled(c.service),
      ready: scaled(c.ready),
      due: scaled(c.due),
      demand: [c.demand],
    })),
    objective: vehiclesFirst ? { vehicleCost: VEHICLE_COST, durationWeight: 0, distanceWeight: 1 } : DISTANCE_OBJECTIVE,
  };
}

/**
 * The instance for the plan checker (travel time = distance): unrounded doubles, or, with the DIMACS convention,
 * whole tenths (every arc truncated to one decimal, times and the instance's integer fields times 10), so that sums
 * along a route are exact: in doubles, tenths add up to 736.0000000000001 where the solver's integers say 736.
 */
export function solomonModel(inst: SolomonInstance, convention: ArcConvention = 'solomon'): CheckModel {
  const depot = inst.nodes[0];
  const unit = convention === 'dimacs' ? 10 : 1;
  const arc =
    convention === 'dimacs'
      ? (a: number, b: number) => Math.floor(euclid(inst, a, b) * 10)
      : (a: number, b: number) => euclid(inst, a, b);
  return {
    travel: arc,
    distance: arc,
    vehicles: Array.from({ length: inst.vehicles }, () => ({
      start: 0,
      end: 0,
      shiftStart: depot.ready * unit,
      shiftEnd: depot.due * unit,
      capacity: [inst.capacity],
    })),
    jobs: inst.nodes.slice(1).map((c, j) => ({
      location: j + 1,
      service: c.service * unit,
      ready: c.ready * unit,
      due: c.due * unit,
      demand: [c.demand],
    })),
  };
}

/**
 * Check routes of customer numbers (depot excluded) with the plan checker, in
 * unrounded doubles (or on the truncated arcs with `dimacs`); returns the total
 * distance so measured and with each arc truncated to one decimal (the
 * convention of the distance_only optima and of DIMACS best-known values).
 * Throws PlanViolation when a rule is broken or a customer is missing.
 */
export function checkSolomon(
  inst: SolomonInstance,
  routes: number[][],
  convention: ArcConvention = 'solomon',
): { distance: number; tenths: number } {
  const used = routes.filter((r) => r.length > 0);
  if (used.length > inst.vehicles) throw new Error(`${used.length} routes for ${inst.vehicles} vehicles`);
  const sims = checkPlan(
    solomonModel(inst, convention),
    used.map((r, v) => ({ vehicle: v, jobs: r.map((c) => c - 1) })),
  );
  let tenths = 0;
  for (const r of used) {
    let at = 0;
    for (const c of [...r, 0]) {
      tenths += Math.floor(euclid(inst, at, c) * 10);
      at = c;
    }
  }
  const unit = convention === 'dimacs' ? 10 : 1;
  return { distance: sims.reduce((s, x) => s + x.distance, 0) / unit, tenths: tenths / 10 };
}

/** The solver's routes (job indices by vehicle) as customer numbers, unused vehicles dropped. */
export function customerRoutes(routes: ReadonlyArray<{ jobs: readonly number[] }>): number[][] {
  return routes.filter((r) => r.jobs.length > 0).map((r) => r.jobs.map((j) => j + 1));
}

/** The header of a Gehring–Homberger bks.csv (12th DIMACS values); Solomon's is `instance,vehicles,distance,distance_only`. */
const DIMACS_HEADER = 'instance,customers,bks_distance,time_limit_s,proven_optimal';

/**
 * A folder of Solomon-format instances with its bks.csv: Solomon's (hierarchical and distance-only values, arcs
 * unrounded) or Gehring–Homberger's (DIMACS distance-only values, arcs truncated to one decimal), told apart by
 * the header. Without a bks.csv gaps are not reported and arcs are unrounded.
 */
export function loadSolomonDir(dir: string): {
  instances: SolomonInstance[];
  bks: Map<string, BestKnown>;
  convention: ArcConvention;
} {
  const files = readdirSync(dir)
    .filter((f) => /\.txt$/i.test(f) && !/readme/i.test(f))
    .sort(byInstanceName);
  const instances = files.map((f) => parseSolomon(readFileSync(join(dir, f), 'utf8')));
  const bks = new Map<string, BestKnown>();
  let convention: ArcConvention = 'solomon';
  let lines: string[] = [];
  try {
    lines = readFileSync(join(dir, 'bks.csv'), 'utf8').split(/\r?\n/);
  } catch {
    // no best-known results: gaps are not reported
  }
  if (lines[0]?.trim() === DIMACS_HEADER) convention = 'dimacs';
  for (const line of lines.slice(1)) {
    const f = line.trim().split(',');
    if (convention === 'dimacs' && f.length === 5)
      bks.set(f[0], { vehicles: NaN, distance: NaN, distanceOnly: Number(f[2]) });
    else if (convention === 'solomon' && f.length === 4)
      bks.set(f[0], { vehicles: Number(f[1]), distance: Number(f[2]), distanceOnly: Number(f[3]) });
  }
  return { instances, bks, convention };
}

/** C1_2_10 after C1_2_9 (numbers compared as numbers), so listings and samples follow the instances' own order. */
function byInstanceName(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** Customers of an instance (the depot excluded). */
export function customerCount(inst: SolomonInstance): number {
  return inst.nodes.length - 1;
}

/**
 * A stratified sample of `k` instances: the same number from each class (the remainder to the first classes),
 * evenly spaced within the class's own order, so the same command always picks the same instances.
 */
export function stratifiedSample(instances: SolomonInstance[], k: number): SolomonInstance[] {
  const classes = [...new Set(instances.map((i) => solomonClass(i.name)))];
  const picked = new Set<SolomonInstance>();
  classes.forEach((cls, c) => {
    const members = instances.filter((i) => solomonClass(i.name) === cls);
    const want = Math.min(members.length, Math.floor(k / classes.length) + (c < k % classes.length ? 1 : 0));
    for (let j = 0; j < want; j++) picked.add(members[Math.floor(((j + 0.5) * members.length) / want)]);
  });
  return instances.filter((i) => picked.has(i));
}

/** C1, C2, R1, R2, RC1, RC2 from an instance name. */
export function solomonClass(name: string): string {
  const m = /^(RC|R|C)(\d)/i.exec(name);
  return m ? `${m[1].toUpperCase()}${m[2]}` : '?';
}
