/**
 * Li & Lim pickup-and-delivery instances (PDPTW) for the fleet bench: the parser, the scaled integer problem the
 * solver works on (as scripts/lib/solomon.ts builds Solomon's: the same fixed point, windows and fleet, plus the
 * pickup-and-delivery pairs), and the check of a plan in unrounded doubles through the shared plan checker
 * (fleet-check.ts: precedence, same vehicle, the load at every point, windows, shifts), with the route count.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { DISTANCE_OBJECTIVE, type FleetProblem } from '../../src/solver/fleet-types.js';
import { checkPlan, PlanViolation, type CheckModel } from './fleet-check.js';
import { SCALE, VEHICLE_COST } from './solomon.js';

export interface LilimTask {
  index: number;
  x: number;
  y: number;
  /** > 0 at a pickup, < 0 (the same amount) at its delivery, 0 at the depot. */
  demand: number;
  ready: number;
  due: number;
  service: number;
  /** At a delivery: its pickup's index (0 otherwise). */
  pickup: number;
  /** At a pickup: its delivery's index (0 otherwise). */
  delivery: number;
}

export interface LilimInstance {
  name: string;
  vehicles: number;
  capacity: number;
  /** [0] is the depot. */
  tasks: LilimTask[];
}

/** Hierarchical best known (vehicles, then distance) and where it comes from. */
export interface LilimBest {
  vehicles: number;
  distance: number;
  who: string;
}

export function parseLilim(name: string, text: string): LilimInstance {
  const rows = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => l.split(/\s+/).map(Number));
  const head = rows.shift();
  if (!head || head.length < 2 || head.some((x) => !Number.isFinite(x))) throw new Error(`${name}: no "K Q S" line`);
  const tasks = rows.map((r, i) => {
    if (r.length !== 9 || r.some((x) => !Number.isFinite(x))) throw new Error(`${name}: bad task line ${i + 2}`);
    const [index, x, y, demand, ready, due, service, pickup, delivery] = r as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    return { index, x, y, demand, ready, due, service, pickup, delivery };
  });
  if (tasks.length < 3 || tasks.some((t, i) => t.index !== i)) throw new Error(`${name}: tasks must be numbered 0..n`);
  for (const t of tasks.slice(1)) {
    const other = tasks[t.demand > 0 ? t.delivery : t.pickup];
    const back = t.demand > 0 ? other?.pickup : other?.delivery;
    if (!other || back !== t.index || other.demand !== -t.demand)
      throw new Error(`${name}: task ${t.index} has no matching pickup or delivery`);
  }
  return { name, vehicles: head[0]!, capacity: head[1]!, tasks };
}

/** The pairs as job indices (job j is task j + 1). */
export function lilimShipments(inst: LilimInstance): Array<{ pickup: number; delivery: number }> {
  return inst.tasks
    .filter((t) => t.index > 0 && t.demand > 0)
    .map((t) => ({ pickup: t.index - 1, delivery: t.delivery - 1 }));
}

function euclid(inst: LilimInstance, a: number, b: number): number {
  const p = inst.tasks[a]!;
  const q = inst.tasks[b]!;
  return Math.sqrt((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y));
}

/** The solver's problem: location 0 is the depot, job j is task j + 1 (fixed point as the Solomon bench's). */
export function lilimProblem(inst: LilimInstance, vehiclesFirst = false): FleetProblem {
  const m = inst.tasks.length;
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
  const depot = inst.tasks[0]!;
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
    jobs: inst.tasks.slice(1).map((t, j) => ({
      location: j + 1,
      service: scaled(t.service),
      ready: scaled(t.ready),
      due: scaled(t.due),
      demand: [Math.abs(t.demand)],
    })),
    shipments: lilimShipments(inst),
    objective: vehiclesFirst ? { vehicleCost: VEHICLE_COST, durationWeight: 0, distanceWeight: 1 } : DISTANCE_OBJECTIVE,
  };
}

/** The instance for the plan checker: unrounded doubles, travel time = distance. */
export function lilimModel(inst: LilimInstance): CheckModel {
  const depot = inst.tasks[0]!;
  return {
    travel: (a, b) => euclid(inst, a, b),
    distance: (a, b) => euclid(inst, a, b),
    vehicles: Array.from({ length: inst.vehicles }, () => ({
      start: 0,
      end: 0,
      shiftStart: depot.ready,
      shiftEnd: depot.due,
      capacity: [inst.capacity],
    })),
    jobs: inst.tasks.slice(1).map((t, j) => ({
      location: j + 1,
      service: t.service,
      ready: t.ready,
      due: t.due,
      demand: [Math.abs(t.demand)],
    })),
    shipments: lilimShipments(inst),
  };
}

/**
 * Check routes of task numbers (depot excluded) in unrounded doubles: at most the instance's vehicles, every task
 * once, each pair on one route with the pickup first, the load within the capacity after every visit, windows and
 * the depot's closing time. Returns the total distance; throws PlanViolation on the first broken rule.
 */
export function checkLilim(inst: LilimInstance, routes: number[][]): number {
  const used = routes.filter((r) => r.length > 0);
  if (used.length > inst.vehicles) throw new PlanViolation(`${used.length} routes for ${inst.vehicles} vehicles`);
  const sims = checkPlan(
    lilimModel(inst),
    used.map((r, v) => ({ vehicle: v, jobs: r.map((t) => t - 1) })),
  );
  return sims.reduce((s, x) => s + x.distance, 0);
}

/** A folder of Li & Lim instances (lc101.txt …) with its bks.csv (data/lilim/README.md). */
export function loadLilimDir(dir: string): { instances: LilimInstance[]; bks: Map<string, LilimBest> } {
  const files = readdirSync(dir)
    .filter((f) => /\.txt$/i.test(f))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const instances = files.map((f) => parseLilim(f.replace(/\.txt$/i, ''), readFileSync(join(dir, f), 'utf8')));
  const bks = new Map<string, LilimBest>();
  let lines: string[] = [];
  try {
    lines = readFileSync(join(dir, 'bks.csv'), 'utf8').split(/\r?\n/);
  } catch {
    // no best-known results: gaps are not reported
  }
  for (const line of lines.slice(1)) {
    const f = line.trim().split(',');
    if (f.length >= 5) bks.set(f[0]!, { vehicles: Number(f[1]), distance: Number(f[2]), who: f[4]! });
  }
  return { instances, bks };
}

/** LC1, LC2, LR1, LR2, LRC1, LRC2 from an instance name. */
export function lilimClass(name: string): string {
  const m = /^(LRC|LR|LC)(\d)/i.exec(name);
  return m ? `${m[1]!.toUpperCase()}${m[2]}` : '?';
}
