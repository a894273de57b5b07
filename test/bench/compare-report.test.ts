/**
 * bench:compare end to end on a tiny plan (2 builds × 2 instances × 2 seeds, a
 * TSPLIB and a deadline set): the report's numbers must equal what the raw
 * results give when recomputed here, independently of the report's code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { RawResult } from '../../scripts/lib/compare/types.js';
import { runCompare, twoBuilds } from './helpers.js';

const OPTIMA: Record<string, number> = { eil51: 426, berlin52: 7542 };
/** Student's t quantile t(0.975, 1): the 95% interval over two seeds. */
const T_975_DF1 = 12.706204736174698;

const run = runCompare([
  ...twoBuilds(),
  '--set',
  'tsplib,deadlines',
  '--instances',
  'eil51,berlin52,tight-20/1000,exact-30/10000',
  '--seeds',
  '2',
  '--budgets',
  '5,20',
  '--threads',
  '2',
]);

/** data-value of the report cell with these attributes. */
function value(attrs: Record<string, string | number>): string {
  const sel = Object.entries(attrs).map(([k, v]) => `data-${k}="${String(v).replace(/\//g, '\\/')}"`);
  const cells = [...run.html.matchAll(/<td([^>]*)>([^<]*)<\/td>/g)].filter((m) => sel.every((s) => m[1].includes(s)));
  assert.equal(cells.length, 1, `one cell with ${sel.join(' ')}, found ${cells.length}`);
  return /data-value="([^"]*)"/.exec(cells[0][1])![1];
}
function text(attrs: Record<string, string | number>): string {
  const sel = Object.entries(attrs).map(([k, v]) => `data-${k}="${v}"`);
  return [...run.html.matchAll(/<td([^>]*)>([^<]*)<\/td>/g)].find((m) => sel.every((s) => m[1].includes(s)))![2];
}
const near = (a: number, b: number) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${a} != ${b}`);

test('the run writes every raw result, scored and valid', () => {
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.results.length, 2 * 4 * 2 * 2);
  for (const r of run.results) {
    assert.equal(r.status, 'ok', r.error);
    assert.equal(new Set(r.order).size, r.order!.length);
    if (r.set === 'tsplib')
      assert.ok(r.durationS! >= OPTIMA[r.instance], `${r.instance} ${r.durationS} below the optimum`);
  }
  // ABI 2 builds report their improvement events: the last one is the route returned, reached at timeToFinalMs
  for (const r of run.results) {
    assert.ok(Array.isArray(r.events) && r.events.length > 0, `${r.instance}: no improvement events`);
    const last = r.events[r.events.length - 1] as number[];
    assert.deepEqual(
      [last[1], last[2]],
      [r.latenessS, r.durationS],
      `${r.instance}: the last event is the final route`,
    );
    assert.equal(typeof r.timeToFinalMs, 'number');
  }
  assert.match(run.html, /A, B: from the improvement events the solver reports during the search/);
});

function tsplibGap(r: RawResult) {
  return (100 * (r.durationS! - OPTIMA[r.instance])) / OPTIMA[r.instance];
}

test('TSPLIB gap table: per-seed mean, median and max over instances, then mean over seeds with a t interval', () => {
  for (const build of ['A', 'B']) {
    for (const budget of [5, 20]) {
      const perSeed = [1, 2].map((seed) =>
        run.results
          .filter((r) => r.set === 'tsplib' && r.build === build && r.budgetMs === budget && r.seed === seed)
          .map(tsplibGap),
      );
      assert.ok(perSeed.every((g) => g.length === 2));
      const k = { set: 'tsplib', budget, build };
      const means = perSeed.map((g) => (g[0] + g[1]) / 2);
      const maxes = perSeed.map((g) => Math.max(...g));
      const mean = (means[0] + means[1]) / 2;
      near(Number(value({ ...k, stat: 'mean' })), mean);
      // two instances: the median is the mean
      near(Number(value({ ...k, stat: 'median' })), mean);
      near(Number(value({ ...k, stat: 'max' })), (maxes[0] + maxes[1]) / 2);
      const half = (T_975_DF1 * (Math.abs(means[0] - means[1]) / Math.SQRT2)) / Math.SQRT2;
      assert.equal(
        text({ ...k, stat: 'mean' }),
        `${mean.toFixed(3)} [${(mean - half).toFixed(3)}, ${(mean + half).toFixed(3)}]`,
      );
      assert.equal(value({ ...k, stat: 'runs' }), '4');
      assert.equal(value({ ...k, stat: 'errors' }), '0');
    }
  }
});

test('wins, ties and losses and the signed-rank p-value follow from the per-instance mean gaps', () => {
  for (const budget of [5, 20]) {
    const meanGap = (build: string, instance: string) => {
      const g = run.results
        .filter((r) => r.build === build && r.budgetMs === budget && r.instance === instance)
        .map(tsplibGap);
      return (g[0] + g[1]) / 2;
    };
    const d = ['eil51', 'berlin52'].map((i) => meanGap('B', i) - meanGap('A', i));
    const better = d.filter((x) => x < -1e-9).length;
    const worse = d.filter((x) => x > 1e-9).length;
    const k = { set: 'tsplib', budget, build: 'B' };
    assert.equal(Number(value({ ...k, stat: 'better' })), better);
    assert.equal(Number(value({ ...k, stat: 'worse' })), worse);
    assert.equal(Number(value({ ...k, stat: 'tied' })), 2 - better - worse);
    const nz = d.filter((x) => Math.abs(x) > 1e-9);
    const p = value({ ...k, stat: 'p' });
    if (nz.length === 0) {
      assert.equal(p, 'none');
    } else {
      // a zero among the pairs, or two pairs of equal size: normal approximation (tie, continuity corrected); else exact
      const abs = nz.map(Math.abs);
      const n = nz.length;
      const ranks = abs.map(
        (a) => abs.filter((b) => b < a - 1e-12).length + (abs.filter((b) => Math.abs(b - a) <= 1e-12).length + 1) / 2,
      );
      const wPlus = nz.reduce((s, x, i) => s + (x > 0 ? ranks[i] : 0), 0);
      let expected: number;
      if (n === 2 && nz.length === d.length && abs[0] !== abs[1]) {
        // exact: the 4 sign patterns over ranks {1, 2} are equally likely; two-sided
        const sums = [0, 1, 2, 3];
        const lo = sums.filter((s) => s <= wPlus).length / 4;
        const hi = sums.filter((s) => s >= wPlus).length / 4;
        expected = Math.min(1, 2 * Math.min(lo, hi));
      } else {
        const mu = (n * (n + 1)) / 4;
        const tieTerm = abs[0] === abs[1] && n === 2 ? 6 / 48 : 0;
        const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm);
        const z = (wPlus - mu - 0.5 * Math.sign(wPlus - mu)) / sigma;
        expected = Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
      }
      assert.ok(Math.abs(Number(p) - expected) < 1e-6, `p ${p}, expected ${expected}`);
    }
  }
});

test('deadline set: on-time rate and total lateness per build and budget', () => {
  for (const build of ['A', 'B']) {
    for (const budget of [5, 20]) {
      const runs = run.results.filter((r) => r.set === 'deadlines' && r.build === build && r.budgetMs === budget);
      assert.equal(runs.length, 4);
      const k = { set: 'deadlines', budget, build };
      near(Number(value({ ...k, stat: 'on-time' })), runs.filter((r) => r.latenessS === 0).length / 4);
      assert.equal(
        Number(value({ ...k, stat: 'lateness' })),
        runs.reduce((s, r) => s + r.latenessS!, 0),
      );
    }
  }
});

test('the report is self-contained: nothing fetched at view time, one verdict per set and budget', () => {
  assert.doesNotMatch(run.html, /<(script|img|link|iframe)[^>]+(src|href)=/i);
  assert.doesNotMatch(run.html, /url\(|@import/);
  assert.doesNotMatch(run.html, /(src|href)="https?:/);
  assert.equal([...run.html.matchAll(/<li data-set=/g)].length, 4);
  assert.match(run.html, /B is better than A at 5 ms on \d\/2 instances/);
  assert.equal([...run.html.matchAll(/<figure class="chart[^"]*" data-chart="anytime"/g)].length, 2);
  assert.equal([...run.html.matchAll(/data-chart="per-instance"/g)].length, 4);
  assert.equal([...run.html.matchAll(/data-chart="on-time"/g)].length, 1);
  // inline SVG ids (clip paths) must not collide between charts
  const ids = [...run.html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(ids).size, ids.length);
  // machine, hashes, Node version and the command line
  assert.match(run.html, /[0-9a-f]{64}/);
  assert.ok(run.html.includes(process.version));
  assert.match(
    run.html,
    /A and B are the same bytes \(sha256 [0-9a-f]{16}…\): any difference between them is seed and timing noise/,
  );
  assert.match(run.html, /npm run bench:compare -- --build A=\S+solver\.wasm --build B=\S+ --set tsplib,deadlines/);
});

test('bad arguments: exit 2 with a message that names the fix, nothing written', () => {
  const bad = runCompare(['--build', 'nope.wasm']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--build .*nope\.wasm: cannot read it .*give the path of a solver \.wasm/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /);
  assert.equal(bad.html, '');
  const budgets = runCompare(['--build', 'x.wasm', '--budgets', '10,abc']);
  assert.equal(budgets.status, 2);
  assert.match(budgets.stderr, /--budgets must be positive milliseconds/);
  const set = runCompare(['--build', 'x.wasm', '--set', 'solomon']);
  assert.match(set.stderr, /--set solomon: unknown set; use tsplib, deadlines, city or all/);
});

/** Standard normal CDF through erfc (Numerical Recipes' erfcc, error < 1.2e-7). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - r / 2 : r / 2;
}
