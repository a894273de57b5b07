/**
 * The self-contained HTML report: tables, the verdict sentences and inline SVG
 * charts; no script, stylesheet, font or image is fetched at view time. The
 * summary is also embedded as JSON (id "summary-data") for tools.
 */
import type { BuildSpec } from './builds.js';
import { anytimeSpec, onTimeSpec, perInstanceSpec, renderSvg } from './charts.js';
import type { MachineInfo } from './machine.js';
import type { InstanceMeta, SetSummary } from './summary.js';
import type { MeanCI } from './stats.js';
import type { SetName } from './types.js';

export interface SetInfo {
  description: string;
  source: string;
  licence: string;
  reference: string;
}

export interface RunMeta {
  command: string;
  startedAt: string;
  finishedAt: string;
  wallSeconds: number;
  machine: MachineInfo;
  builds: BuildSpec[];
  sets: SetName[];
  setInfo: Partial<Record<SetName, SetInfo>>;
  instances: InstanceMeta[];
  seeds: number[];
  budgets: number[];
  threads: number;
  warmUpMs: number;
  skipped: string[];
  notRun: string[];
  /** e.g. two builds with the same bytes */
  warnings?: string[];
  errors: number;
}

const SET_TITLES: Record<SetName, string> = {
  tsplib: 'TSPLIB',
  deadlines: 'Planted deadlines',
  city: 'City-scale (gazetteer)',
};

export function esc(s: unknown): string {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A gap in percent, 3 decimals. */
export function fmtGap(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : '–';
}

export function fmtCI(c: MeanCI): string {
  if (!Number.isFinite(c.mean)) return '–';
  return c.lo === null || c.hi === null ? fmtGap(c.mean) : `${fmtGap(c.mean)} [${fmtGap(c.lo)}, ${fmtGap(c.hi)}]`;
}

function fmtMs(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return '–';
  return x >= 100 ? x.toFixed(0) : x.toFixed(1);
}

function cell(value: string, attrs: Record<string, string | number> = {}): string {
  const a = Object.entries(attrs)
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('');
  return `<td${a}>${esc(value)}</td>`;
}

export async function renderReport(meta: RunMeta, summary: SetSummary[]): Promise<string> {
  const parts: string[] = [];
  const labels = meta.builds.map((b) => b.label);
  const title = labels.length >= 2 ? `${labels.slice(1).join(', ')} vs ${labels[0]}` : labels.join('');
  parts.push(`<header><h1>Solver comparison: ${esc(title)}</h1>`);
  parts.push(
    `<p class="lede">${esc(meta.sets.map((s) => SET_TITLES[s]).join(', '))} · ${meta.seeds.length} seeds · budgets ${esc(meta.budgets.join(', '))} ms · ${esc(meta.startedAt)}</p></header>`,
  );
  parts.push(verdicts(summary));
  for (const s of summary) parts.push(await setSection(s, meta));
  parts.push(runSection(meta, summary));
  parts.push(
    `<script type="application/json" id="summary-data">${JSON.stringify({ meta, summary }).replace(/</g, '\\u003c')}</script>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Solver comparison: ${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}

function verdicts(summary: SetSummary[]): string {
  const items = summary.flatMap((s) =>
    s.budgets.flatMap((b) =>
      b.comparisons.map(
        (c) =>
          `<li data-set="${esc(s.set)}" data-budget="${b.budgetMs}" data-candidate="${esc(c.candidate)}"><b>${esc(SET_TITLES[s.set])}</b>: ${esc(c.sentence)}</li>`,
      ),
    ),
  );
  if (items.length === 0)
    return '<section id="verdicts"><h2>Verdict</h2><p>One build only: nothing to compare.</p></section>';
  return `<section id="verdicts"><h2>Verdict</h2><ul class="verdicts">${items.join('')}</ul></section>`;
}

async function setSection(s: SetSummary, meta: RunMeta): Promise<string> {
  const info = meta.setInfo[s.set];
  const out: string[] = [
    `<section class="set" id="set-${esc(s.set)}"><h2>${esc(SET_TITLES[s.set])} <small>(${s.instances.length} instances)</small></h2>`,
  ];
  if (info)
    out.push(
      `<p class="info">${esc(info.description)} Source: ${esc(info.source)}. Licence: ${esc(info.licence)}. Reference for the gaps: ${esc(info.reference)}.</p>`,
    );

  // gap table
  const dl = s.hasDeadlines;
  out.push('<h3>Gap per budget</h3>');
  out.push(
    `<p class="help">Gap = (duration − reference) / reference, in %. For each seed the mean, median and max over the instances are taken; the table gives their mean over the ${meta.seeds.length} seeds with a 95% t-based confidence interval [low, high].</p>`,
  );
  out.push(
    `<div class="scroll"><table class="stats"><thead><tr><th>budget</th><th>build</th><th>runs</th><th>errors</th><th>mean gap %</th><th>median gap %</th><th>max gap %</th><th>mean time ms</th><th>time to final ms (median)</th>${dl ? '<th>on time</th><th>total lateness s</th>' : ''}</tr></thead><tbody>`,
  );
  for (const b of s.budgets) {
    for (const st of b.builds) {
      const k = { set: s.set, budget: b.budgetMs, build: st.build };
      out.push(
        `<tr>${cell(`${b.budgetMs} ms`)}${cell(st.build)}${cell(String(st.runs), { ...k, stat: 'runs', value: st.runs })}${cell(String(st.errors), { ...k, stat: 'errors', value: st.errors })}` +
          `${cell(fmtCI(st.mean), { ...k, stat: 'mean', value: st.mean.mean })}${cell(fmtCI(st.median), { ...k, stat: 'median', value: st.median.mean })}${cell(fmtCI(st.max), { ...k, stat: 'max', value: st.max.mean })}` +
          `${cell(fmtMs(st.meanElapsedMs))}${cell(fmtMs(st.medianTimeToFinalMs))}` +
          (dl
            ? `${cell(`${(100 * st.onTimeRate).toFixed(1)}%`, { ...k, stat: 'on-time', value: st.onTimeRate })}${cell(String(st.totalLatenessS), { ...k, stat: 'lateness', value: st.totalLatenessS })}`
            : '') +
          '</tr>',
      );
    }
  }
  out.push('</tbody></table></div>');

  // comparisons
  const comps = s.budgets.flatMap((b) => b.comparisons);
  if (comps.length > 0) {
    out.push('<h3>Wins, ties and losses per instance</h3>');
    out.push(
      '<p class="help">Per instance, each build\'s mean over the seeds (lateness first, then the gap) decides the win. The Wilcoxon signed-rank test pairs the per-instance mean gaps (two-sided; W+ sums the ranks of the instances where the candidate\'s gap is higher; n counts the instances that differ).</p>',
    );
    out.push(
      '<div class="scroll"><table class="stats"><thead><tr><th>budget</th><th>candidate</th><th>baseline</th><th>better</th><th>tied</th><th>worse</th><th>W+</th><th>n</th><th>p</th><th>method</th></tr></thead><tbody>',
    );
    for (const c of comps) {
      const k = { set: s.set, budget: c.budgetMs, build: c.candidate };
      out.push(
        `<tr>${cell(`${c.budgetMs} ms`)}${cell(c.candidate)}${cell(c.baseline)}${cell(String(c.better), { ...k, stat: 'better', value: c.better })}${cell(String(c.tied), { ...k, stat: 'tied', value: c.tied })}${cell(String(c.worse), { ...k, stat: 'worse', value: c.worse })}` +
          `${cell(c.gapTest ? String(c.gapTest.statistic) : '–')}${cell(c.gapTest ? String(c.gapTest.nonZero) : '0')}${cell(c.gapTest ? c.gapTest.pValue.toPrecision(3) : '–', { ...k, stat: 'p', value: c.gapTest ? c.gapTest.pValue : 'none' })}${cell(c.gapTest?.method ?? 'no difference')}</tr>`,
      );
    }
    out.push('</tbody></table></div>');
  }

  // anytime
  const a = s.anytime;
  out.push('<h3>Quality against time</h3>');
  if (a.points.length > 0) {
    const how: string[] = [];
    if (a.fromEvents.length > 0)
      how.push(
        `${a.fromEvents.join(', ')}: from the improvement events the solver reports during the search (runs at the largest budget)`,
      );
    if (a.fromBudgets.length > 0)
      how.push(
        `${a.fromBudgets.join(', ')}: ${a.fromBudgets.length > 1 ? 'these builds report' : 'the build reports'} no improvement events, so the curve is sampled by running each budget (one point per budget: the mean gap of its runs)`,
      );
    out.push(
      `<figure class="chart" data-chart="anytime">${await renderSvg(anytimeSpec(a.points, labels(meta), `${SET_TITLES[s.set]}: mean gap against time`))}<figcaption>${esc(how.join('. '))}.</figcaption></figure>`,
    );
  }

  if (dl) {
    out.push(
      `<figure class="chart" data-chart="on-time">${await renderSvg(onTimeSpec(s.budgets, labels(meta), `${SET_TITLES[s.set]}: runs with zero lateness`))}<figcaption>Share of runs that reach every stop by its deadline, per budget.</figcaption></figure>`,
    );
  }

  // per instance
  out.push('<h3>Per instance</h3>');
  for (const b of s.budgets) {
    if (b.perInstance.length === 0) continue;
    out.push(
      `<figure class="chart wide" data-chart="per-instance" data-budget="${b.budgetMs}">${await renderSvg(perInstanceSpec(b, s.instances, labels(meta), `${SET_TITLES[s.set]} at ${b.budgetMs} ms: gap per instance`))}</figure>`,
    );
  }
  out.push(
    '<details><summary>Per-instance table</summary><div class="scroll"><table class="stats small"><thead><tr><th>budget</th><th>instance</th><th>build</th><th>runs</th><th>mean gap %</th><th>min</th><th>max</th>' +
      (dl ? '<th>mean lateness s</th>' : '') +
      '</tr></thead><tbody>',
  );
  for (const b of s.budgets) {
    for (const r of b.perInstance) {
      const k = { set: s.set, budget: b.budgetMs, build: r.build, instance: r.instance };
      out.push(
        `<tr>${cell(`${b.budgetMs} ms`)}${cell(r.instance)}${cell(r.build)}${cell(String(r.runs))}${cell(fmtGap(r.meanGap), { ...k, stat: 'instance-mean', value: r.meanGap })}${cell(fmtGap(r.minGap))}${cell(fmtGap(r.maxGap))}${dl ? cell(r.meanLatenessS.toFixed(1)) : ''}</tr>`,
      );
    }
  }
  out.push('</tbody></table></div></details>');

  out.push(
    '<details><summary>Instances and references</summary><div class="scroll"><table class="stats small"><thead><tr><th>instance</th><th>n</th><th>reference</th><th>from</th></tr></thead><tbody>',
  );
  for (const i of s.instances)
    out.push(
      `<tr>${cell(i.name)}${cell(String(i.n))}${cell(i.reference === null ? '–' : String(i.reference))}${cell(i.referenceSource)}</tr>`,
    );
  out.push('</tbody></table></div></details>');
  if (s.notes.length > 0) out.push(`<ul class="notes">${s.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  out.push('</section>');
  return out.join('\n');
}

/** Builds in command-line order: the baseline first, the same colour in every chart. */
function labels(meta: RunMeta): string[] {
  return meta.builds.map((b) => b.label);
}

function runSection(meta: RunMeta, summary: SetSummary[]): string {
  const m = meta.machine;
  const events = new Set(summary.flatMap((s) => s.anytime.fromEvents));
  const rows = meta.builds.map((b) => {
    const what =
      b.kind === 'wasm'
        ? `WebAssembly, ABI ${b.abiVersion}, ${b.bytes} bytes`
        : b.kind === 'native'
          ? `native (${b.cargo}), crate ${b.crateCommit}`
          : `external: ${b.version}`;
    return `<tr>${cell(b.label)}${cell(what)}${cell(b.path)}<td><code>${esc(b.sha256)}</code></td>${cell(events.has(b.label) ? 'yes' : 'no')}</tr>`;
  });
  const lines = [
    `<section id="run"><h2>How this report was made</h2>`,
    `<p>Reproduce: <code id="command">${esc(meta.command)}</code></p>`,
    '<div class="scroll"><table class="stats"><thead><tr><th>build</th><th>kind</th><th>file</th><th>sha256</th><th>improvement events</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table></div>',
    '<dl class="machine">',
    `<dt>machine</dt><dd>${esc(`${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os} (${m.host})`)}</dd>`,
    `<dt>Node</dt><dd>${esc(m.node)}</dd>`,
    `<dt>repository</dt><dd>${esc(m.repositoryCommit)}</dd>`,
    `<dt>load at start</dt><dd>${esc(m.uptimeAtStart)}</dd>`,
    `<dt>load at end</dt><dd>${esc(m.uptimeAtEnd ?? '–')}</dd>`,
    `<dt>run</dt><dd>${esc(`${meta.startedAt} → ${meta.finishedAt}, ${meta.wallSeconds.toFixed(0)} s wall, ${meta.threads} worker threads (one solve per thread at a time), each WebAssembly build warmed up for ${meta.warmUpMs} ms per thread before its first measured solve`)}</dd>`,
    `<dt>seeds</dt><dd>${esc(meta.seeds.join(', '))}</dd>`,
    `<dt>solve errors</dt><dd>${meta.errors}</dd>`,
    '</dl>',
  ];
  if (meta.warnings && meta.warnings.length > 0)
    lines.push(`<h3>Warnings</h3><ul class="notes">${meta.warnings.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`);
  const skipped = [...meta.skipped, ...meta.notRun];
  if (skipped.length > 0)
    lines.push(`<h3>Not run</h3><ul class="notes">${skipped.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`);
  lines.push('</section>');
  return lines.join('\n');
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1180px;padding:1rem 1.5rem;color:#1b1f24;background:#fff}
h1{font-size:1.6rem;margin:.2rem 0}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}h3{margin-top:1.4rem}
small{color:#57606a;font-weight:normal}.lede,.help,.info,figcaption{color:#57606a}.help,figcaption{font-size:.9rem}
table.stats{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
table.stats th,table.stats td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:right;white-space:nowrap}
table.stats th{background:#f6f8fa}table.stats td:nth-child(-n+2){text-align:left}
table.small{font-size:.85rem}ul.verdicts li{margin:.35rem 0}ul.notes{color:#9a6700}
figure.chart{margin:1rem 0;overflow-x:auto}.scroll{overflow-x:auto}figure.chart svg{max-width:none}
code{background:#f6f8fa;padding:.1rem .3rem;border-radius:4px;word-break:break-all}
dl.machine{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.machine dt{font-weight:600}dl.machine dd{margin:0}
`;
