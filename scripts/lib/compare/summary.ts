/**
 * From raw results to the report's numbers. Everything the report shows is
 * computed here, from results.jsonl alone (plus the instance list), so a test
 * can recompute it independently.
 *
 * Gap of a run = 100 · (duration − reference) / reference, in percent. The
 * reference: the optimum when the manifest has one; for planted deadline
 * instances the better of the planted duration and the best on-time route any
 * build found at the largest budget; for city instances that best route alone.
 */
import { max, mean, meanCI, median, signedRank, type MeanCI, type SignedRank } from './stats.js';
import type { RawResult, ReferenceKind, SetName } from './types.js';

export interface InstanceMeta {
  set: SetName;
  name: string;
  n: number;
  referenceKind: ReferenceKind;
  storedReference?: number;
  hasDeadlines: boolean;
}

export interface InstanceSummary extends InstanceMeta {
  /** The reference the gaps use; null when no run gave one (no on-time route). */
  reference: number | null;
  referenceSource: string;
}

export interface BuildBudgetStats {
  build: string;
  runs: number;
  errors: number;
  /** Per seed: the mean / median / max gap over the instances; then the mean over seeds with a 95% CI. */
  mean: MeanCI;
  median: MeanCI;
  max: MeanCI;
  meanElapsedMs: number;
  /** Median time at which the final route was first reached, when the build reports it. */
  medianTimeToFinalMs: number | null;
  /** Share of runs with zero lateness (deadline sets). */
  onTimeRate: number;
  totalLatenessS: number;
}

export interface InstanceRow {
  instance: string;
  build: string;
  runs: number;
  meanGap: number;
  minGap: number;
  maxGap: number;
  meanLatenessS: number;
}

export interface Comparison {
  baseline: string;
  candidate: string;
  budgetMs: number;
  /** Instances both builds solved. */
  pairs: number;
  better: number;
  worse: number;
  tied: number;
  /** On the per-instance mean gaps (candidate − baseline). */
  gapTest: SignedRank | null;
  /** On the per-instance mean lateness, when some run was late. */
  latenessTest: SignedRank | null;
  sentence: string;
}

export interface BudgetSummary {
  budgetMs: number;
  builds: BuildBudgetStats[];
  perInstance: InstanceRow[];
  comparisons: Comparison[];
}

export interface AnytimePoint {
  build: string;
  ms: number;
  gap: number;
}

export interface SetSummary {
  set: SetName;
  hasDeadlines: boolean;
  instances: InstanceSummary[];
  budgets: BudgetSummary[];
  anytime: { points: AnytimePoint[]; fromEvents: string[]; fromBudgets: string[] };
  notes: string[];
}

export interface SummaryInput {
  builds: string[];
  instances: InstanceMeta[];
  seeds: number[];
  budgets: number[];
  results: RawResult[];
}

/** Gap differences smaller than this (percentage points) are ties. */
export const TIE = 1e-9;

export function summarize(input: SummaryInput): SetSummary[] {
  const sets = [...new Set(input.instances.map((i) => i.set))];
  return sets.map((set) => summarizeSet(set, input));
}

function summarizeSet(set: SetName, input: SummaryInput): SetSummary {
  const metas = input.instances.filter((i) => i.set === set);
  const results = input.results.filter((r) => r.set === set);
  const ok = results.filter((r) => r.status === 'ok');
  const budgets = [...input.budgets].sort((a, b) => a - b);
  const largest = budgets[budgets.length - 1];
  const notes: string[] = [];

  const instances: InstanceSummary[] = metas.map((m) => {
    const atLargest = ok
      .filter((r) => r.instance === m.name && r.budgetMs === largest && r.latenessS === 0)
      .map((r) => r.durationS!);
    const bestFound = atLargest.length > 0 ? Math.min(...atLargest) : null;
    if (m.referenceKind === 'optimum') {
      const below = ok.filter((r) => r.instance === m.name && r.latenessS === 0 && r.durationS! < m.storedReference!);
      if (below.length > 0)
        notes.push(
          `${m.name}: ${below.length} runs are shorter than the optimum ${m.storedReference}: the instance data or the evaluator is wrong`,
        );
      return { ...m, reference: m.storedReference!, referenceSource: 'optimum' };
    }
    if (m.referenceKind === 'planted') {
      const planted = m.storedReference!;
      if (bestFound !== null && bestFound < planted)
        return {
          ...m,
          reference: bestFound,
          referenceSource: `best on-time route found at ${largest} ms (planted ${planted})`,
        };
      return { ...m, reference: planted, referenceSource: 'planted route' };
    }
    if (bestFound === null)
      notes.push(`${m.name}: no on-time route at ${largest} ms, so no reference: left out of the gaps`);
    return { ...m, reference: bestFound, referenceSource: `best route found at ${largest} ms` };
  });
  const reference = new Map(instances.map((i) => [i.name, i.reference]));
  const gapOf = (r: RawResult): number | null => {
    const ref = reference.get(r.instance);
    return ref ? (100 * (r.durationS! - ref)) / ref : null;
  };

  const budgetSummaries: BudgetSummary[] = budgets.map((budgetMs) => {
    const atBudget = results.filter((r) => r.budgetMs === budgetMs);
    const builds = input.builds.filter((b) => atBudget.some((r) => r.build === b));
    const buildStats = builds.map((build): BuildBudgetStats => {
      const mine = atBudget.filter((r) => r.build === build);
      const good = mine.filter((r) => r.status === 'ok');
      const perSeed = input.seeds
        .map((seed) =>
          good
            .filter((r) => r.seed === seed)
            .map(gapOf)
            .filter((g): g is number => g !== null),
        )
        .filter((g) => g.length > 0);
      const ttf = good.map((r) => r.timeToFinalMs).filter((t): t is number => typeof t === 'number');
      return {
        build,
        runs: mine.length,
        errors: mine.length - good.length,
        mean: meanCI(perSeed.map(mean)),
        median: meanCI(perSeed.map(median)),
        max: meanCI(perSeed.map(max)),
        meanElapsedMs: mean(good.map((r) => r.elapsedMs!)),
        medianTimeToFinalMs: ttf.length === good.length && ttf.length > 0 ? median(ttf) : null,
        onTimeRate: good.length === 0 ? NaN : good.filter((r) => r.latenessS === 0).length / good.length,
        totalLatenessS: good.reduce((s, r) => s + r.latenessS!, 0),
      };
    });
    const perInstance: InstanceRow[] = [];
    for (const m of instances) {
      for (const build of builds) {
        const runs = atBudget.filter((r) => r.build === build && r.instance === m.name && r.status === 'ok');
        const gaps = runs.map(gapOf).filter((g): g is number => g !== null);
        if (gaps.length === 0) continue;
        perInstance.push({
          instance: m.name,
          build,
          runs: runs.length,
          meanGap: mean(gaps),
          minGap: Math.min(...gaps),
          maxGap: Math.max(...gaps),
          meanLatenessS: mean(runs.map((r) => r.latenessS!)),
        });
      }
    }
    const comparisons = builds.slice(1).map((candidate) => compare(builds[0], candidate, budgetMs, perInstance));
    return { budgetMs, builds: buildStats, perInstance, comparisons };
  });

  return {
    set,
    hasDeadlines: metas.some((m) => m.hasDeadlines),
    instances,
    budgets: budgetSummaries,
    anytime: anytime(
      input.builds,
      ok.filter((r) => r.budgetMs === largest),
      budgetSummaries,
      ok,
      gapOf,
      largest,
    ),
    notes,
  };
}

function compare(baseline: string, candidate: string, budgetMs: number, rows: InstanceRow[]): Comparison {
  const a = new Map(rows.filter((r) => r.build === baseline).map((r) => [r.instance, r]));
  const b = new Map(rows.filter((r) => r.build === candidate).map((r) => [r.instance, r]));
  const names = [...a.keys()].filter((k) => b.has(k));
  let better = 0;
  let worse = 0;
  let tied = 0;
  for (const k of names) {
    const x = a.get(k)!;
    const y = b.get(k)!;
    // lateness first, then the gap, as the solver's objective
    const c =
      Math.abs(y.meanLatenessS - x.meanLatenessS) > TIE
        ? y.meanLatenessS - x.meanLatenessS
        : Math.abs(y.meanGap - x.meanGap) > TIE
          ? y.meanGap - x.meanGap
          : 0;
    if (c < 0) better++;
    else if (c > 0) worse++;
    else tied++;
  }
  const gapTest =
    names.length > 0
      ? signedRank(
          names.map((k) => a.get(k)!.meanGap),
          names.map((k) => b.get(k)!.meanGap),
        )
      : null;
  const anyLate = names.some((k) => a.get(k)!.meanLatenessS > 0 || b.get(k)!.meanLatenessS > 0);
  const latenessTest = anyLate
    ? signedRank(
        names.map((k) => a.get(k)!.meanLatenessS),
        names.map((k) => b.get(k)!.meanLatenessS),
      )
    : null;
  const c: Comparison = {
    baseline,
    candidate,
    budgetMs,
    pairs: names.length,
    better,
    worse,
    tied,
    gapTest,
    latenessTest,
    sentence: '',
  };
  c.sentence = comparisonSentence(c);
  return c;
}

export function formatP(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

/** "B is better than A at 25 ms on 21/33 instances, p = 0.003" and what that means. */
export function comparisonSentence(c: Comparison): string {
  const at = `at ${c.budgetMs} ms`;
  if (c.pairs === 0) return `${c.candidate} and ${c.baseline} have no instance in common ${at}.`;
  const counts = `${c.candidate} is better than ${c.baseline} ${at} on ${c.better}/${c.pairs} instances (worse on ${c.worse}, tied on ${c.tied})`;
  const t = c.gapTest;
  let s: string;
  if (!t) {
    s = `${counts}: the mean gaps are equal on every instance, nothing to test.`;
  } else {
    const lower = t.statistic < t.expected;
    const how = `Wilcoxon signed-rank test on the per-instance mean gaps, two-sided, ${t.method}, ${t.nonZero} instance${t.nonZero === 1 ? '' : 's'} differ${t.nonZero === 1 ? 's' : ''}`;
    s =
      t.pValue < 0.05
        ? `${counts}, ${formatP(t.pValue)}: ${c.candidate}'s gaps are significantly ${lower ? 'lower' : 'higher'} at the 5% level, a difference seed noise alone would rarely give (${how}).`
        : `${counts}, ${formatP(t.pValue)}: no significant difference at the 5% level, this could be seed noise (${how}).`;
  }
  const l = c.latenessTest;
  if (l) {
    s += ` Lateness: ${formatP(l.pValue)} (${l.method}); ${c.candidate}'s lateness is ${l.pValue < 0.05 ? `significantly ${l.statistic < l.expected ? 'lower' : 'higher'}` : 'not significantly different'}.`;
  }
  return s;
}

/**
 * Mean gap against time per build. From improvement events when every run of
 * the build at the largest budget reports them (on a log-spaced time grid,
 * starting when every run has a route); otherwise sampled from the budgets
 * (one point per budget: the mean gap of the runs with that budget).
 */
function anytime(
  builds: string[],
  largestRuns: RawResult[],
  budgets: BudgetSummary[],
  ok: RawResult[],
  gapOf: (r: RawResult) => number | null,
  largest: number,
): SetSummary['anytime'] {
  const points: AnytimePoint[] = [];
  const fromEvents: string[] = [];
  const fromBudgets: string[] = [];
  for (const build of builds) {
    const runs = largestRuns.filter((r) => r.build === build && gapOf(r) !== null);
    if (runs.length === 0) continue;
    if (runs.every((r) => Array.isArray(r.events) && r.events.length > 0)) {
      fromEvents.push(build);
      const start = Math.max(0.01, ...runs.map((r) => r.events![0][0]));
      const steps = 40;
      for (let k = 0; k <= steps; k++) {
        const t = start * (largest / start) ** (k / steps);
        const gaps = runs.map((r) => {
          let best = r.events![0];
          for (const e of r.events!) if (e[0] <= t) best = e;
          return gapOf({ ...r, durationS: best[2] })!;
        });
        points.push({ build, ms: t, gap: mean(gaps) });
      }
    } else {
      fromBudgets.push(build);
      for (const b of budgets) {
        const gaps = ok
          .filter((r) => r.build === build && r.budgetMs === b.budgetMs)
          .map(gapOf)
          .filter((g): g is number => g !== null);
        if (gaps.length > 0) points.push({ build, ms: b.budgetMs, gap: mean(gaps) });
      }
    }
  }
  return { points, fromEvents, fromBudgets };
}
