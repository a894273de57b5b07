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

export interface SolomonCustomer { number: number; x: number; y: number; demand: number; ready: number; due: number; service: number }
export interface SolomonInstance { name: string; vehicles: number; capacity: number; /** [0] is the depot. */ nodes: SolomonCustomer[] }
export interface BestKnown { vehicles: number; distance: number; distanceOnly: number }

export function parseSolomon(text: string): SolomonInstance {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const name = lines.shift();
  if (!name) throw new Error('empty file');
  let fleet: [number, number] | null = null;
  const nodes: SolomonCustomer[] = [];
  for (const line of lines) {
    const words = line.split(/\s+/);
    const nums = words.map(Number);
    if (nums.some((x) => !Number.isFinite(x))) continue; // a header line
    if (fleet === null && nums.length === 2) fleet = [nums[0], nums[1]];
    else if (nums.length === 7) nodes.push({ number: nums[0], x: nums[1], y: nums[2], demand: nums[3], ready: nums[4], due: nums[5], service: nums[6] });
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

/** The solver's problem: location 0 is the depot, job j is customer j + 1. */
export function solomonProblem(inst: SolomonInstance, vehiclesFirst = false): FleetProblem {
  const m = inst.nodes.length;
  const travel = new Int32Array(m * m);
  const distance = new Int32Array(m * m);
  for (let a = 0; a < m; a++) {
    for (let b = 0; b < m; b++) {
      const e = euclid(inst, a, b) * SCALE;
      travel[a * m + b] = Math.ceil(e);
      distance[a * m + b] = Math.round(e);
    }
  }
  const scaled = (x: number) => Math.round(x * SCALE);
  const depot = inst.nodes[0];
  return {
    locations: m,
    travel,
    distance,
    vehicles: Array.from({ length: inst.vehicles }, () => ({ start: 0, end: 0, shiftStart: scaled(depot.ready), shiftEnd: scaled(depot.due), capacity: [inst.capacity] })),
    jobs: inst.nodes.slice(1).map((c, j) => ({ location: j + 1, service: scaled(c.service), ready: scaled(c.ready), due: scaled(c.due), demand: [c.demand] })),
    objective: vehiclesFirst ? { vehicleCost: VEHICLE_COST, durationWeight: 0, distanceWeight: 1 } : DISTANCE_OBJECTIVE,
  };
}

/** The instance in unrounded doubles for the plan checker (travel time = Euclidean distance). */
export function solomonModel(inst: SolomonInstance): CheckModel {
  const depot = inst.nodes[0];
  return {
    travel: (a, b) => euclid(inst, a, b),
    distance: (a, b) => euclid(inst, a, b),
    vehicles: Array.from({ length: inst.vehicles }, () => ({ start: 0, end: 0, shiftStart: depot.ready, shiftEnd: depot.due, capacity: [inst.capacity] })),
    jobs: inst.nodes.slice(1).map((c, j) => ({ location: j + 1, service: c.service, ready: c.ready, due: c.due, demand: [c.demand] })),
  };
}

/**
 * Check routes of customer numbers (depot excluded) in unrounded doubles with
 * the plan checker; returns the total distance unrounded and with each arc
 * truncated to one decimal (the convention of the distance_only optima).
 * Throws PlanViolation when a rule is broken or a customer is missing.
 */
export function checkSolomon(inst: SolomonInstance, routes: number[][]): { distance: number; tenths: number } {
  const used = routes.filter((r) => r.length > 0);
  if (used.length > inst.vehicles) throw new Error(`${used.length} routes for ${inst.vehicles} vehicles`);
  const sims = checkPlan(solomonModel(inst), used.map((r, v) => ({ vehicle: v, jobs: r.map((c) => c - 1) })));
  let tenths = 0;
  for (const r of used) {
    let at = 0;
    for (const c of [...r, 0]) {
      tenths += Math.floor(euclid(inst, at, c) * 10);
      at = c;
    }
  }
  return { distance: sims.reduce((s, x) => s + x.distance, 0), tenths: tenths / 10 };
}

/** The solver's routes (job indices by vehicle) as customer numbers, unused vehicles dropped. */
export function customerRoutes(routes: ReadonlyArray<{ jobs: readonly number[] }>): number[][] {
  return routes.filter((r) => r.jobs.length > 0).map((r) => r.jobs.map((j) => j + 1));
}

export function loadSolomonDir(dir: string): { instances: SolomonInstance[]; bks: Map<string, BestKnown> } {
  const files = readdirSync(dir).filter((f) => /\.txt$/i.test(f) && !/readme/i.test(f)).sort();
  const instances = files.map((f) => parseSolomon(readFileSync(join(dir, f), 'utf8')));
  const bks = new Map<string, BestKnown>();
  try {
    for (const line of readFileSync(join(dir, 'bks.csv'), 'utf8').split(/\r?\n/).slice(1)) {
      const f = line.trim().split(',');
      if (f.length !== 4) continue;
      bks.set(f[0], { vehicles: Number(f[1]), distance: Number(f[2]), distanceOnly: Number(f[3]) });
    }
  } catch {
    // no best-known results: gaps are not reported
  }
  return { instances, bks };
}

/** C1, C2, R1, R2, RC1, RC2 from an instance name. */
export function solomonClass(name: string): string {
  const m = /^(RC|R|C)(\d)/i.exec(name);
  return m ? `${m[1].toUpperCase()}${m[2]}` : '?';
}
