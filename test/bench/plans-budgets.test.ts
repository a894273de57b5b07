/**
 * bench:api --budgets-ms: each budget's plans are compared with the longest budget's, vehicles first, then the
 * total time; failed calls are left out; the budget list is checked and sorted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { budgetGaps, parseBudgets, type BudgetCall } from '../../scripts/lib/plans-budgets.js';

const call = (budgetMs: number, vehiclesUsed: number, estimatedTimeMin: number, status = 200): BudgetCall => ({
  stops: 1000,
  vans: 20,
  call: 1,
  status,
  ms: budgetMs,
  assigned: 1000,
  vehiclesUsed,
  estimatedTimeMin,
  totalDistanceKm: 500,
  budgetMs,
});

test('the gap is the time above the longest budget, with the same vehicles', () => {
  const gaps = budgetGaps([
    call(2000, 12, 10_080),
    call(2000, 12, 10_120),
    call(10_000, 12, 10_000),
    call(10_000, 12, 10_000),
  ]);
  const short = gaps.find((g) => g.budgetMs === 2000)!;
  assert.equal(short.referenceBudgetMs, 10_000);
  assert.equal(short.estimatedTimeMin, 10_100);
  assert.ok(Math.abs(short.timeGapPct - 1) < 1e-9);
  assert.equal(short.withinOnePercent, true);
  const long = gaps.find((g) => g.budgetMs === 10_000)!;
  assert.equal(long.timeGapPct, 0);
});

test('more vehicles than the reference is never within 1 %, fewer always is', () => {
  const more = budgetGaps([call(2000, 13, 9_000), call(10_000, 12, 10_000)]).find((g) => g.budgetMs === 2000)!;
  assert.equal(more.withinOnePercent, false);
  const fewer = budgetGaps([call(2000, 11, 11_000), call(10_000, 12, 10_000)]).find((g) => g.budgetMs === 2000)!;
  assert.equal(fewer.withinOnePercent, true);
  const slower = budgetGaps([call(2000, 12, 10_200), call(10_000, 12, 10_000)]).find((g) => g.budgetMs === 2000)!;
  assert.equal(slower.withinOnePercent, false);
});

test('failed calls do not count', () => {
  const gaps = budgetGaps([call(2000, 12, 10_000), call(2000, 0, 0, 502), call(10_000, 12, 10_000)]);
  assert.equal(gaps.find((g) => g.budgetMs === 2000)!.estimatedTimeMin, 10_000);
});

test('budgets are whole milliseconds from 10 to 600,000, deduplicated and sorted', () => {
  assert.deepEqual(
    parseBudgets('10000,2000,2000', (m) => assert.fail(m)),
    [2000, 10_000],
  );
  for (const bad of ['5', '2000,x', '1.5', '700000'])
    assert.throws(
      () =>
        parseBudgets(bad, (m) => {
          throw new Error(m);
        }),
      /--budgets-ms takes whole milliseconds/,
    );
});
