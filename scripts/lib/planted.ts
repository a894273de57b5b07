/**
 * The planted-deadline families and their instance generator: a tour is drawn, deadlines are set at
 * or after its arrival times (so a zero-lateness route exists). Shared by bench:deadlines and
 * bench:compare's deadline set, so both measure the same instances.
 */
import { NO_DEADLINE } from '../../src/solver/abi-constants.generated.ts';
import { rng } from './rng.ts';

export interface PlantedFamily {
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

export const PLANTED_FAMILIES: PlantedFamily[] = [
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

export function plantedInstance(f: PlantedFamily, seed: number) {
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
      const near = [...left]
        .sort((a, b) => durations[cur * m + a + 1] - durations[cur * m + b + 1] || a - b)
        .slice(0, 2);
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
  const deadlineS = new Int32Array(f.n).fill(NO_DEADLINE);
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
