/**
 * Statistics of the comparison report.
 *
 * Confidence intervals are t-based: mean ± t(0.975, k−1)·s/√k over the k seeds
 * (Student's t quantile from @stdlib). The paired test is the Wilcoxon
 * signed-rank test of @stdlib/stats-wilcoxon (R's wilcox.test rules): exact
 * distribution when there are at most 50 non-zero differences without ties,
 * otherwise the normal approximation with tie and continuity corrections;
 * zero differences are dropped (Wilcox's method).
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import wilcoxon from '@stdlib/stats-wilcoxon';

export interface MeanCI {
  mean: number;
  /** 95% interval; null with fewer than two values. */
  lo: number | null;
  hi: number | null;
  count: number;
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h] : (s[h - 1] + s[h]) / 2;
}

export function max(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => Math.max(a, b), -Infinity);
}

/** Mean with a two-sided 95% t-based confidence interval. */
export function meanCI(xs: readonly number[]): MeanCI {
  const k = xs.length;
  const m = mean(xs);
  if (k < 2) return { mean: m, lo: null, hi: null, count: k };
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  const half = tQuantile(0.975, k - 1) * Math.sqrt(ss / (k - 1) / k);
  return { mean: m, lo: m - half, hi: m + half, count: k };
}

export interface SignedRank {
  /** Pairs with a non-zero difference (the test's n). */
  nonZero: number;
  /** Pairs compared (zero differences included). */
  pairs: number;
  /** W+: sum of the ranks of the positive differences (candidate − baseline > 0). */
  statistic: number;
  /** The statistic's expectation under H0, n(n+1)/4. */
  expected: number;
  /** Two-sided p-value. */
  pValue: number;
  method: 'exact' | 'normal approximation';
}

/**
 * Differences closer than this are equal: the values are gaps in percent, and
 * rounding them keeps floating-point noise from breaking ties in the ranks.
 */
const RESOLUTION = 1e-9;

/**
 * Paired two-sided Wilcoxon signed-rank test of `candidate − baseline`;
 * null when every difference is zero (nothing to test).
 */
export function signedRank(baseline: readonly number[], candidate: readonly number[]): SignedRank | null {
  if (baseline.length !== candidate.length) throw new Error('signedRank: samples of different lengths');
  const d = baseline.map((b, i) => Math.round((candidate[i] - b) / RESOLUTION) * RESOLUTION);
  const nonZero = d.filter((x) => x !== 0);
  const n = nonZero.length;
  if (n === 0) return null;
  let statistic: number;
  let pValue: number;
  if (d.length < 2) {
    // one pair: the library needs two; the exact two-sided p of one signed rank is 1
    statistic = nonZero[0] > 0 ? 1 : 0;
    pValue = 1;
  } else {
    // all differences, zeros included: the library drops them and, as R does, then uses the normal approximation
    const r = wilcoxon(d, { alternative: 'two-sided', zeroMethod: 'wilcox', correction: true });
    statistic = r.statistic;
    pValue = Math.min(1, r.pValue);
  }
  const abs = nonZero.map(Math.abs);
  const ties = new Set(abs).size !== abs.length;
  const zeros = n < d.length;
  return {
    nonZero: n,
    pairs: d.length,
    statistic,
    expected: (n * (n + 1)) / 4,
    pValue,
    method: n <= 50 && !ties && !zeros ? 'exact' : 'normal approximation',
  };
}
