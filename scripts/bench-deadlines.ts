/**
 * Deadline benchmark on planted instances: a random tour is drawn, deadlines
 * are set at or after its arrival times (so a zero-lateness route exists), and
 * the solver must find one. Reports, per family, the share of instances solved
 * with zero lateness, mean lateness, mean duration vs the planted tour, and ms.
 *
 *   npx tsx scripts/bench-deadlines.ts [--time-limit-ms N] [--count K] [--wasm FILE] [--seed S]
 *        [--stall N] [--only FAMILY,...] [--json]
 *
 * --stall N: stop after N kicks without a new best route (default 0: the solver's
 * convergence stop, as in the service; 4294967295: run to the time limit).
 *
 * Instances are generated from fixed seeds, so runs are comparable.
 */
import { resolve } from 'node:path';

import { loadSolver, DEFAULT_WASM_PATH } from '../src/solver/load.ts';

interface Family {
  name: string;
  n: number;
  hasEnd: boolean;
  /** deadline = planted arrival + uniform(0, slack) seconds */
  slackS: number;
  /** share of stops with a deadline, percent */
  share: number;
  /** service seconds: uniform(lo, hi) */
  service: [number, number];
  /** planted tour: a random permutation, or a randomised nearest-neighbour tour (short, so deadlines bind) */
  plant?: 'random' | 'greedy';
}

const FAMILIES: Family[] = [
  { name: 'tight-20', n: 20, hasEnd: true, slackS: 60, share: 100, service: [60, 300] },
  { name: 'tight-50', n: 50, hasEnd: true, slackS: 60, share: 100, service: [60, 300] },
  { name: 'tight-100-open', n: 100, hasEnd: false, slackS: 120, share: 100, service: [60, 300] },
  { name: 'medium-50', n: 50, hasEnd: true, slackS: 900, share: 60, service: [60, 600] },
  { name: 'medium-100', n: 100, hasEnd: true, slackS: 900, share: 60, service: [60, 600] },
  { name: 'medium-200', n: 200, hasEnd: true, slackS: 900, share: 60, service: [0, 300] },
  { name: 'loose-100', n: 100, hasEnd: false, slackS: 3600, share: 30, service: [60, 600] },
  { name: 'loose-200', n: 200, hasEnd: true, slackS: 3600, share: 30, service: [0, 300] },
  { name: 'nosvc-tight-50', n: 50, hasEnd: true, slackS: 30, share: 100, service: [0, 0] },
  // deadline = planted arrival exactly for every stop: essentially one on-time order
  { name: 'exact-30', n: 30, hasEnd: true, slackS: 0, share: 100, service: [60, 300] },
  { name: 'exact-100-open', n: 100, hasEnd: false, slackS: 0, share: 100, service: [60, 300] },
  { name: 'exact-200', n: 200, hasEnd: true, slackS: 0, share: 100, service: [0, 300] },
  // short planted tours: the deadlines force a near-optimal route
  { name: 'greedy-tight-50', n: 50, hasEnd: true, slackS: 300, share: 50, service: [60, 300], plant: 'greedy' },
  { name: 'greedy-tight-100', n: 100, hasEnd: true, slackS: 300, share: 50, service: [60, 300], plant: 'greedy' },
  { name: 'greedy-exact-100', n: 100, hasEnd: false, slackS: 0, share: 30, service: [60, 300], plant: 'greedy' },
  { name: 'greedy-tight-200', n: 200, hasEnd: true, slackS: 120, share: 40, service: [0, 300], plant: 'greedy' },
];

/** mulberry32: small seeded PRNG. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function plantedInstance(f: Family, seed: number) {
  const r = rng(seed);
  const m = f.n + 1 + (f.hasEnd ? 1 : 0);
  // points in a 15 km square, ~8 m/s, asymmetric detours up to 20 %
  const pts = Array.from({ length: m }, () => [r() * 15000, r() * 15000]);
  const durations = new Int32Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      if (i === j) continue;
      const d = Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]) / 8;
      durations[i * m + j] = Math.round(d * (1 + 0.2 * r()) + 30);
    }
  }
  const serviceS = new Int32Array(f.n).map(() => Math.round(f.service[0] + r() * (f.service[1] - f.service[0])));
  // planted tour: random permutation, or nearest neighbour choosing among the 2 nearest
  let tour = Array.from({ length: f.n }, (_, i) => i);
  if (f.plant === 'greedy') {
    const left = new Set(tour);
    tour = [];
    let cur = 0;
    while (left.size > 0) {
      const near = [...left].sort((a, b) => durations[cur * m + a + 1] - durations[cur * m + b + 1] || a - b).slice(0, 2);
      const pick = near[Math.floor(r() * near.length)];
      left.delete(pick);
      tour.push(pick);
      cur = pick + 1;
    }
  } else {
    for (let i = tour.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [tour[i], tour[j]] = [tour[j], tour[i]];
    }
  }
  const deadlineS = new Int32Array(f.n).fill(-1);
  let t = 0;
  let prev = 0;
  for (const s of tour) {
    t += durations[prev * m + (s + 1)];
    if (r() * 100 < f.share) deadlineS[s] = Math.round(t + r() * f.slackS);
    t += serviceS[s];
    prev = s + 1;
  }
  const plantedDuration = t + (f.hasEnd ? durations[prev * m + (m - 1)] : 0);
  return { problem: { durations, size: m, serviceS, deadlineS, hasEnd: f.hasEnd }, plantedDuration };
}

function main() {
  const argv = process.argv.slice(2);
  let timeLimitMs = 1000;
  let count = 10;
  let wasm = DEFAULT_WASM_PATH;
  let seed = 1;
  let json = false;
  let stall = 0;
  let only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--time-limit-ms') timeLimitMs = Number(argv[++i]);
    else if (k === '--count') count = Number(argv[++i]);
    else if (k === '--wasm') wasm = resolve(argv[++i]);
    else if (k === '--seed') seed = Number(argv[++i]);
    else if (k === '--json') json = true;
    else if (k === '--stall') stall = Number(argv[++i]);
    else if (k === '--only') only = (argv[++i] ?? '').split(',');
    else {
      console.error(`bench-deadlines: unknown argument ${k}`);
      process.exit(2);
    }
  }
  const solver = loadSolver(wasm);
  let zeroAll = 0;
  let totalAll = 0;
  if (!json) console.log(`time limit ${timeLimitMs} ms, ${count} instances per family, solver seed ${seed}`);
  if (!json) console.log(`${'family'.padEnd(16)} ${'n'.padStart(4)} ${'zero-late'.padStart(10)} ${'mean late s'.padStart(12)} ${'dur/planted'.padStart(12)} ${'mean ms'.padStart(8)}`);
  let ratioAll = 0;
  let families = 0;
  FAMILIES.forEach((f, fi) => {
    if (only.length > 0 && !only.includes(f.name)) return;
    let zero = 0;
    let late = 0;
    let ratio = 0;
    let ms = 0;
    for (let k = 0; k < count; k++) {
      const { problem, plantedDuration } = plantedInstance(f, 1000 * (fi + 1) + k);
      const r = solver.solve(problem, { seed, timeLimitMs, stallIterations: stall });
      if (r.latenessS === 0) zero++;
      late += r.latenessS;
      ratio += r.durationS / plantedDuration;
      ms += r.solveMs;
    }
    zeroAll += zero;
    totalAll += count;
    ratioAll += ratio / count;
    families++;
    const row = { family: f.name, n: f.n, zeroLateShare: zero / count, meanLatenessS: late / count, durationVsPlanted: ratio / count, meanMs: ms / count };
    if (json) console.log(JSON.stringify(row));
    else console.log(`${f.name.padEnd(16)} ${String(f.n).padStart(4)} ${`${zero}/${count}`.padStart(10)} ${(late / count).toFixed(0).padStart(12)} ${(ratio / count).toFixed(3).padStart(12)} ${(ms / count).toFixed(1).padStart(8)}`);
  });
  if (json) console.log(JSON.stringify({ total: { zeroLateShare: zeroAll / totalAll, meanDurationVsPlanted: ratioAll / families } }));
  else console.log(`overall zero-lateness share: ${zeroAll}/${totalAll} = ${((100 * zeroAll) / totalAll).toFixed(1)}%; mean dur/planted over families ${(ratioAll / families).toFixed(4)}`);
}

if (process.argv[1]?.endsWith("bench-deadlines.ts")) main();
