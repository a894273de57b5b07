/** The report's summary on synthetic raw results with known answers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { summarize, type InstanceMeta } from '../../scripts/lib/compare/summary.js';
import type { RawResult } from '../../scripts/lib/compare/types.js';

const instances: InstanceMeta[] = Array.from({ length: 10 }, (_, k) => ({
  set: 'tsplib',
  name: `i${k}`,
  n: 50,
  referenceKind: 'optimum',
  storedReference: 1000,
  hasDeadlines: false,
}));

function result(
  build: string,
  instance: string,
  seed: number,
  budgetMs: number,
  durationS: number,
  events: RawResult['events'] = null,
): RawResult {
  return {
    build,
    set: 'tsplib',
    instance,
    n: 50,
    seed,
    budgetMs,
    status: 'ok',
    latenessS: 0,
    durationS,
    elapsedMs: budgetMs,
    timeToFinalMs: events ? events[events.length - 1][0] : null,
    events,
    order: [],
  };
}

test('B better on every instance: 10/10 and the exact p = 2/1024, stated in words', () => {
  const results: RawResult[] = [];
  instances.forEach((inst, k) => {
    for (const seed of [1, 2]) {
      results.push(result('A', inst.name, seed, 10, 1010 + k + seed));
      results.push(result('B', inst.name, seed, 10, 1000 + seed));
    }
  });
  const [s] = summarize({ builds: ['A', 'B'], instances, seeds: [1, 2], budgets: [10], results });
  const c = s.budgets[0].comparisons[0];
  assert.deepEqual([c.better, c.worse, c.tied, c.pairs], [10, 0, 0, 10]);
  assert.equal(c.gapTest!.method, 'exact');
  assert.equal(c.gapTest!.statistic, 0);
  assert.ok(Math.abs(c.gapTest!.pValue - 2 / 1024) < 1e-12);
  assert.match(
    c.sentence,
    /^B is better than A at 10 ms on 10\/10 instances \(worse on 0, tied on 0\), p = 0\.002: B's gaps are significantly lower at the 5% level/,
  );
  // A's mean gap: seed 1 → mean over k of (11 + k)/10 %, seed 2 → (12 + k)/10 %
  const a = s.budgets[0].builds[0];
  assert.ok(Math.abs(a.mean.mean - (1.55 + 1.65) / 2) < 1e-12);
  assert.ok(Math.abs(a.max.mean - (2.0 + 2.1) / 2) < 1e-12);
});

test('equal results: ties everywhere, nothing to test', () => {
  const results = instances.flatMap((inst) => ['A', 'B'].map((b) => result(b, inst.name, 1, 10, 1000)));
  const [s] = summarize({ builds: ['A', 'B'], instances, seeds: [1], budgets: [10], results });
  const c = s.budgets[0].comparisons[0];
  assert.equal(c.tied, 10);
  assert.equal(c.gapTest, null);
  assert.match(c.sentence, /nothing to test/);
});

test('anytime curve: from improvement events when every run has them, else sampled from the budgets', () => {
  const results: RawResult[] = [];
  for (const inst of instances.slice(0, 2)) {
    // A reports events: 1100 at 1 ms, 1000 at 10 ms
    results.push(
      result('A', inst.name, 1, 100, 1000, [
        [1, 0, 1100],
        [10, 0, 1000],
      ]),
    );
    results.push(
      result('A', inst.name, 1, 10, 1000, [
        [1, 0, 1100],
        [10, 0, 1000],
      ]),
    );
    results.push(result('B', inst.name, 1, 10, 1050));
    results.push(result('B', inst.name, 1, 100, 1020));
  }
  const [s] = summarize({
    builds: ['A', 'B'],
    instances: instances.slice(0, 2),
    seeds: [1],
    budgets: [10, 100],
    results,
  });
  assert.deepEqual(s.anytime.fromEvents, ['A']);
  assert.deepEqual(s.anytime.fromBudgets, ['B']);
  const a = s.anytime.points.filter((p) => p.build === 'A');
  assert.equal(a[0].ms, 1);
  assert.ok(Math.abs(a[0].gap - 10) < 1e-12);
  assert.ok(a.filter((p) => p.ms >= 10).every((p) => p.gap === 0));
  assert.ok(a.filter((p) => p.ms < 10 - 1e-9).every((p) => Math.abs(p.gap - 10) < 1e-12));
  assert.deepEqual(
    s.anytime.points.filter((p) => p.build === 'B'),
    [
      { build: 'B', ms: 10, gap: 5 },
      { build: 'B', ms: 100, gap: 2 },
    ],
  );
  assert.equal(s.budgets[1].builds[0].medianTimeToFinalMs, 10);
  assert.equal(s.budgets[1].builds[1].medianTimeToFinalMs, null);
});

test('best-found reference: the best on-time route at the largest budget; planted: never above the planted route', () => {
  const city: InstanceMeta[] = [{ set: 'city', name: 'c', n: 50, referenceKind: 'best-found', hasDeadlines: false }];
  const mk = (build: string, budgetMs: number, durationS: number): RawResult => ({
    ...result(build, 'c', 1, budgetMs, durationS),
    set: 'city',
  });
  const [s] = summarize({
    builds: ['A', 'B'],
    instances: city,
    seeds: [1],
    budgets: [10, 100],
    results: [mk('A', 10, 900), mk('B', 10, 1200), mk('A', 100, 1100), mk('B', 100, 1000)],
  });
  assert.equal(s.instances[0].reference, 1000);
  // a shorter route at a smaller budget gets a negative gap: the rule is the largest budget
  assert.ok(Math.abs(s.budgets[0].perInstance.find((r) => r.build === 'A')!.meanGap - -10) < 1e-12);
  const dl: InstanceMeta[] = [
    { set: 'deadlines', name: 'p', n: 20, referenceKind: 'planted', storedReference: 5000, hasDeadlines: true },
  ];
  const late: RawResult = { ...result('A', 'p', 1, 10, 4000), set: 'deadlines', instance: 'p', latenessS: 30 };
  const onTime: RawResult = { ...result('A', 'p', 2, 10, 4800), set: 'deadlines', instance: 'p' };
  const [d] = summarize({ builds: ['A'], instances: dl, seeds: [1, 2], budgets: [10], results: [late, onTime] });
  assert.equal(d.instances[0].reference, 4800, 'a late route does not count');
  assert.equal(d.budgets[0].builds[0].onTimeRate, 0.5);
  assert.equal(d.budgets[0].builds[0].totalLatenessS, 30);
});
