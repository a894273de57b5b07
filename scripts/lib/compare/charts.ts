/**
 * The report's charts: Vega-Lite specifications compiled with vega-lite and
 * rendered to SVG strings by vega's headless View (no canvas, no browser), so
 * the report embeds them inline and needs nothing at view time.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

import type { AnytimePoint, BudgetSummary, InstanceSummary } from './summary.js';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const FONT = { font: 'system-ui, sans-serif' };
const CONFIG = {
  view: { stroke: '#ddd' },
  axis: { labelFont: FONT.font, titleFont: FONT.font },
  legend: { labelFont: FONT.font, titleFont: FONT.font },
  title: { font: FONT.font },
};
/** Gaps are often 0 and span decades: a symmetric log scale keeps both visible. */
const GAP_SCALE = { type: 'symlog' as const, constant: 0.01 };

export function anytimeSpec(points: AnytimePoint[], builds: string[], title: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 620,
    height: 300,
    config: CONFIG,
    data: { values: points },
    mark: { type: 'line', point: true, strokeWidth: 2 },
    encoding: {
      x: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'time (ms, log scale)' },
      y: { field: 'gap', type: 'quantitative', scale: GAP_SCALE, title: 'mean gap (%)' },
      color: { field: 'build', type: 'nominal', title: 'build', scale: { domain: builds } },
    },
  };
}

export function perInstanceSpec(
  b: BudgetSummary,
  instances: InstanceSummary[],
  builds: string[],
  title: string,
): TopLevelSpec {
  const order = instances.map((i) => i.name);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: { step: Math.max(14, 8 * new Set(b.perInstance.map((r) => r.build)).size) },
    height: 220,
    config: CONFIG,
    data: { values: b.perInstance },
    encoding: {
      x: { field: 'instance', type: 'nominal', sort: order, title: null, axis: { labelAngle: -60 } },
      xOffset: { field: 'build', type: 'nominal', scale: { domain: builds } },
      color: { field: 'build', type: 'nominal', title: 'build', scale: { domain: builds } },
    },
    layer: [
      {
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: {
          y: { field: 'minGap', type: 'quantitative', scale: GAP_SCALE, title: 'gap (%): mean, min–max over seeds' },
          y2: { field: 'maxGap' },
        },
      },
      { mark: { type: 'point', filled: true, size: 30 }, encoding: { y: { field: 'meanGap', type: 'quantitative' } } },
    ],
  };
}

export function onTimeSpec(budgets: BudgetSummary[], builds: string[], title: string): TopLevelSpec {
  const values = budgets.flatMap((b) =>
    b.builds.map((s) => ({ build: s.build, ms: b.budgetMs, onTime: 100 * s.onTimeRate })),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 620,
    height: 200,
    config: CONFIG,
    data: { values },
    mark: { type: 'line', point: true, strokeWidth: 2 },
    encoding: {
      x: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'budget (ms, log scale)' },
      y: { field: 'onTime', type: 'quantitative', scale: { domain: [0, 100] }, title: 'runs on time (%)' },
      color: { field: 'build', type: 'nominal', title: 'build', scale: { domain: builds } },
    },
  };
}
