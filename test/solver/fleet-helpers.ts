/** Fleet problems for the solver tests, and the native fleet CLI (solver-rs/src/bin/fleet.rs). */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { flattenFleet } from '../../src/solver/fleet-abi.js';
import type { FleetJob, FleetProblem, FleetVehicle } from '../../src/solver/index.js';
import { ROOT, rng } from './helpers.js';

/**
 * A random day: points on a plane, asymmetric travel, 2 demand dimensions,
 * shifts, windows, soft deadlines, maxStops, allowed vehicles, open routes, and
 * a few jobs no vehicle can serve (no vehicle allowed, unreachable, too heavy).
 */
export function randomFleet(seed: number, jobs: number, vehicles: number): FleetProblem {
  const r = rng(seed);
  const m = jobs + 2;
  const pts = Array.from({ length: m }, () => [Math.floor(r() * 1000), Math.floor(r() * 1000)]);
  const travel = new Int32Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++)
      travel[i * m + j] =
        i === j ? 0 : Math.floor(Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1])) + Math.floor(r() * 50);
  }
  // the last location cannot be reached from anywhere
  for (let i = 0; i < m - 1; i++) travel[i * m + m - 1] = -1;
  const vs: FleetVehicle[] = Array.from({ length: vehicles }, (_, v) => ({
    start: 0,
    ...(v % 3 === 2 ? {} : { end: v % 3 === 0 ? 0 : 1 }),
    shiftStart: Math.floor(r() * 600),
    shiftEnd: 6000 + Math.floor(r() * 6000),
    capacity: [20 + Math.floor(r() * 30), 5 + Math.floor(r() * 10)],
    ...(v % 4 === 1 ? { maxStops: 4 + Math.floor(r() * 6) } : {}),
  }));
  const js: FleetJob[] = Array.from({ length: jobs }, (_, k) => {
    const ready = r() < 0.3 ? Math.floor(r() * 4000) : 0;
    const job: FleetJob = {
      location: k + 2 === m - 1 ? m - 1 : k + 2,
      service: Math.floor(r() * 300),
      demand: [Math.floor(r() * 8), Math.floor(r() * 3)],
    };
    if (ready > 0) job.ready = ready;
    if (r() < 0.3) job.due = ready + 1500 + Math.floor(r() * 4000);
    if (r() < 0.3) job.deadline = ready + Math.floor(r() * 5000);
    if (r() < 0.25) job.allowedVehicles = Array.from({ length: vehicles }, (_, v) => v).filter(() => r() < 0.5);
    return job;
  });
  js[0].allowedVehicles = [];
  js[1].demand = [1000, 0];
  return {
    locations: m,
    travel,
    vehicles: vs,
    jobs: js,
    objective: { vehicleCost: 10_000, durationWeight: 1, distanceWeight: 0 },
  };
}

/**
 * `randomFleet` with shipments and backhauls: jobs 2k and 2k + 1 of [from, to) become a pickup-and-delivery pair
 * (same demand, the delivery's allowed vehicles and window dropped), and every fifth other job picks up a backhaul.
 */
export function withShipments(p: FleetProblem, from: number, to: number): FleetProblem {
  const jobs = p.jobs.map((j) => ({ ...j }));
  const shipments: Array<{ pickup: number; delivery: number }> = [];
  for (let k = from; k + 1 < to; k += 2) {
    const [a, b] = [jobs[k]!, jobs[k + 1]!];
    b.demand = [...(a.demand ?? [])];
    delete b.allowedVehicles;
    shipments.push({ pickup: k, delivery: k + 1 });
  }
  jobs.forEach((j, k) => {
    if ((k < from || k >= to) && k % 5 === 3) j.pickup = [1 + (k % 4), k % 2];
  });
  return { ...p, jobs, shipments };
}

/** The native CLI's file: solver-rs/src/bin/fleet.rs (the flat arrays of fleet/flat.rs). */
export function fleetFile(p: FleetProblem, seed: number, maxIterations: number, stallIterations = 0): string {
  const f = flattenFleet(p);
  const row = (xs: ArrayLike<number>) => Array.from(xs).join(' ');
  return (
    [
      row([
        p.locations,
        f.nv,
        f.nj,
        f.dims,
        p.distance ? 1 : 0,
        f.allowed ? 1 : 0,
        seed,
        maxIterations,
        stallIterations,
      ]),
      row(f.objective),
      row(p.travel),
      p.distance ? row(p.distance) : '',
      row(f.vehicles),
      row(f.jobs),
      row(f.capacity),
      row(f.demand),
      f.allowed ? row(f.allowed) : '',
      f.extra ? row(f.extra) : '',
    ].join('\n') + '\n'
  );
}

/** Build the native fleet CLI (release) and run it on the given files: one JSON line each. */
export function runNativeFleet(cargo: string, files: string[]): Array<{ status: number; out?: number[] }> {
  const crate = join(ROOT, 'solver-rs');
  const version = execFileSync(cargo, ['--version'], { encoding: 'utf8' })
    .trim()
    .replace(/[^\w.]+/g, '-');
  const targetDir = join(crate, 'target', `parity-${version}`);
  execFileSync(cargo, ['build', '--release', '--quiet', '--bin', 'fleet'], {
    cwd: crate,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
  });
  const bin = join(targetDir, 'release', 'fleet');
  if (!existsSync(bin)) throw new Error(`native fleet CLI not found at ${bin}`);
  return execFileSync(bin, files, { encoding: 'utf8', maxBuffer: 64 << 20 })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

export function writeFleetFile(
  path: string,
  p: FleetProblem,
  seed: number,
  maxIterations: number,
  stallIterations = 0,
): string {
  writeFileSync(path, fleetFile(p, seed, maxIterations, stallIterations));
  return path;
}
