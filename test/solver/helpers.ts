/** Shared helpers for the solver tests. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareCost, orderCost } from '../../scripts/lib/route-cost.js';
import { NO_DEADLINE, type SolveProblem } from '../../src/solver/index.js';
import { rng } from '../../scripts/lib/rng.js';

export { rng };

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The TSPLIB set shipped in the repository (instances, optimal tours, optima.json). */
export const SAMPLE_DIR = fileURLToPath(new URL('../../data/tsplib/', import.meta.url));
export const TSPLIB_DIR = SAMPLE_DIR;

export type EndKind = 'open' | 'closed' | 'separate';

/** Random asymmetric problem (points + asymmetric noise), optional deadlines and service. */
export function randomProblem(
  seed: number,
  n: number,
  end: EndKind,
  opts: { deadlines?: boolean; service?: boolean } = {},
): SolveProblem {
  const r = rng(seed);
  const m = n + 1 + (end === 'open' ? 0 : 1);
  const pts = Array.from({ length: m }, () => [Math.floor(r() * 1000), Math.floor(r() * 1000)]);
  if (end === 'closed') pts[m - 1] = pts[0];
  const durations = new Int32Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      const e = Math.floor(Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]));
      durations[i * m + j] = e === 0 ? 0 : e + Math.floor(r() * 200);
    }
  }
  const serviceS = new Int32Array(n).map(() => (opts.service ? Math.floor(r() * 300) : 0));
  const deadlineS = new Int32Array(n).map(() =>
    opts.deadlines && r() < 0.5 ? Math.floor(r() * 600 * n) : NO_DEADLINE,
  );
  return { durations, size: m, serviceS, deadlineS, hasEnd: end !== 'open' };
}

/** Lateness and duration of an order, recomputed in JS (the contract): the benchmarks' own evaluator. */
export const evaluate = (p: SolveProblem, order: number[]): { latenessS: number; durationS: number } =>
  orderCost(p, order);
export { compareCost };

/** Best cost over all permutations (n <= 8). */
export function bruteForce(p: SolveProblem): { latenessS: number; durationS: number } {
  const n = p.serviceS.length;
  let best = { latenessS: Infinity, durationS: Infinity };
  const cur: number[] = [];
  const used = new Array(n).fill(false);
  const rec = () => {
    if (cur.length === n) {
      const c = evaluate(p, cur);
      if (compareCost(c, best) < 0) best = c;
      return;
    }
    for (let s = 0; s < n; s++) {
      if (used[s]) continue;
      used[s] = true;
      cur.push(s);
      rec();
      cur.pop();
      used[s] = false;
    }
  };
  rec();
  return best;
}

export function isPermutation(order: number[], n: number): boolean {
  return order.length === n && new Set(order).size === n && order.every((s) => Number.isInteger(s) && s >= 0 && s < n);
}

/** cargo on PATH, else Debian's /usr/bin/cargo, else rustup's default location. */
export function findCargo(): string | null {
  const candidates = ['cargo', '/usr/bin/cargo', join(process.env.HOME ?? '/root', '.cargo/bin/cargo')];
  for (const c of candidates) {
    const r = spawnSync(c, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return null;
}
