/**
 * The report's statistics against textbook values (R's wilcox.test and t.test
 * give the same numbers).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { meanCI, median, signedRank } from '../../scripts/lib/compare/stats.js';

const close = (actual: number, expected: number, tol: number) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${actual} is not within ${tol} of ${expected}`);

test('signed-rank, exact: Hollander & Wolfe depression data (R: V = 40, two-sided p = 0.03906)', () => {
  const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
  const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
  // candidate − baseline = x − y
  const r = signedRank(y, x);
  assert.ok(r);
  assert.equal(r.statistic, 40);
  assert.equal(r.method, 'exact');
  assert.equal(r.nonZero, 9);
  close(r.pValue, 0.0390625, 1e-12); // 2 · 10/512
});

test("signed-rank, normal approximation with a zero and ties: Student's sleep data (R: V = 0, p = 0.009091)", () => {
  const group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
  const group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
  const r = signedRank(group2, group1);
  assert.ok(r);
  assert.equal(r.statistic, 0);
  assert.equal(r.method, 'normal approximation');
  assert.equal(r.nonZero, 9);
  assert.equal(r.pairs, 10);
  // z = (0 − 22.5 + 0.5) / sqrt(9·10·19/24 − 2·3/48) = −2.608586…
  close(r.pValue, 0.009090698, 1e-6);
});

test('signed-rank, exact small sample: one negative rank of six (p = 2·2/64)', () => {
  // differences 1..6 with the smallest negative: W+ = 20, P(W+ ≥ 20) = 2/64
  const base = [0, 0, 0, 0, 0, 0];
  const cand = [-1, 2, 3, 4, 5, 6];
  const r = signedRank(base, cand);
  assert.ok(r);
  assert.equal(r.statistic, 20);
  close(r.pValue, 4 / 64, 1e-12);
});

test('signed-rank: all differences zero → nothing to test; symmetric data → p = 1', () => {
  assert.equal(signedRank([1, 2, 3], [1, 2, 3]), null);
  const r = signedRank([0, 0], [1, -1]);
  assert.ok(r);
  assert.equal(r.pValue, 1);
});

test('signed-rank: floating-point noise does not break ties', () => {
  // −0.2 − 1.1 and −1.2 − 0.1 differ in the last bit; the ranks must tie (as in the sleep data)
  const a = signedRank([1.1, 0.1, 1, 2], [-0.2, -1.2, 3, 5]);
  const b = signedRank([0, 0, 0, 0], [-1.3, -1.3, 2, 3]);
  assert.ok(a && b);
  assert.equal(a.pValue, b.pValue);
  assert.equal(a.method, 'normal approximation');
});

test('t-based 95% interval: 1..5 (R t.test: 1.036757 to 4.963243)', () => {
  const ci = meanCI([1, 2, 3, 4, 5]);
  assert.equal(ci.mean, 3);
  close(ci.lo!, 1.036757, 1e-6);
  close(ci.hi!, 4.963243, 1e-6);
  assert.deepEqual(meanCI([7]), { mean: 7, lo: null, hi: null, count: 1 });
  assert.equal(median([3, 1, 2, 10]), 2.5);
});
