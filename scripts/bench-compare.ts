/**
 * Compare solver builds: every build × instance × seed × budget, solved on
 * worker threads, scored by our own evaluator; writes OUT/results.jsonl (one
 * raw result per line), OUT/run.json and one self-contained OUT/report.html.
 *
 *   npm run bench:compare -- --build A.wasm --build B.wasm [--build native]
 *       [--set tsplib|deadlines|city|all] [--seeds 10] [--budgets 10,25,100,1000] --out report/
 *
 * How to read the report: docs/benchmarks-report.md. Exit 0; 1 when a solve
 * failed (the report lists it); 2 on bad arguments.
 */
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { ArgsError, USAGE, commandLine, parseArgs } from './lib/compare/args.js';
import { BuildError, identicalBuilds, resolveBuilds } from './lib/compare/builds.js';
import { loadSet } from './lib/compare/instances.js';
import { machineInfo, uptime } from './lib/compare/machine.js';
import { readManifest } from './lib/compare/manifest.js';
import { renderReport, type RunMeta } from './lib/compare/report.js';
import { WARM_UP_MS } from './lib/compare/solve-task.js';
import { planTasks, runTasks } from './lib/compare/run.js';
import { summarize } from './lib/compare/summary.js';
import type { BenchInstance, RawResult } from './lib/compare/types.js';

function say(line: string) {
  process.stderr.write(`bench-compare: ${line}\n`);
}

function fail(message: string, code = 2): never {
  say(message);
  process.exit(code);
}

async function main() {
  const argv = process.argv.slice(2);
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (err instanceof ArgsError) fail(`${err.message}\n${USAGE}`);
    throw err;
  }
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const out = resolve(args.out);
  if (args.rerender) {
    await writeReport(
      out,
      JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunMeta,
      readResults(join(out, 'results.jsonl')),
    );
    return;
  }

  const skipped: string[] = [];
  let builds;
  try {
    builds = resolveBuilds(args.builds, skipped, say);
  } catch (err) {
    if (err instanceof BuildError) fail(err.message);
    throw err;
  }
  for (const s of skipped) say(s);
  if (builds.length === 0) fail('no build can run here', 1);
  const warnings = identicalBuilds(builds);
  for (const w of warnings) say(w);

  const manifest = readManifest();
  let instances: BenchInstance[] = args.sets.flatMap((s) => loadSet(manifest, s));
  if (args.instances) {
    const known = new Set(instances.map((i) => i.name));
    const unknown = args.instances.filter((n) => !known.has(n));
    if (unknown.length > 0)
      fail(
        `--instances: ${unknown.join(', ')} not in the set(s) ${args.sets.join(', ')}; the names are in data/bench/manifest.json`,
      );
    instances = instances.filter((i) => args.instances!.includes(i.name));
  }
  const seeds = Array.from({ length: args.seeds }, (_, i) => i + 1);
  const { tasks, notRun } = planTasks({ builds, instances, seeds, budgets: args.budgets });
  for (const s of notRun) say(s);
  const threads = Math.min(args.threads, Math.max(1, tasks.length));

  mkdirSync(out, { recursive: true });
  const machine = machineInfo();
  const startedAt = new Date();
  const work = tasks.reduce((s, t) => s + t.budgetMs, 0);
  say(
    `${tasks.length} solves (${builds.map((b) => b.label).join(', ')} × ${instances.length} instances × ${seeds.length} seeds × ${args.budgets.length} budgets) on ${threads} threads, ≥ ${Math.ceil(work / threads / 1000)} s of search; ${machine.uptimeAtStart}`,
  );

  const jsonl = createWriteStream(join(out, 'results.jsonl'));
  let errors = 0;
  let lastReport = 0;
  let workDone = 0;
  const results = await runTasks(tasks, threads, (r, done) => {
    workDone += r.budgetMs;
    jsonl.write(JSON.stringify(r) + '\n');
    if (r.status === 'error') {
      errors++;
      say(`error: ${r.build} ${r.instance} seed ${r.seed} ${r.budgetMs} ms: ${r.error}`);
    }
    const now = Date.now();
    if (now - lastReport > 10_000 || done === tasks.length) {
      lastReport = now;
      const elapsed = (now - startedAt.getTime()) / 1000;
      say(
        `${done}/${tasks.length} solves, ${elapsed.toFixed(0)} s${done < tasks.length ? `, about ${((elapsed / workDone) * (work - workDone)).toFixed(0)} s left` : ''}`,
      );
    }
  });
  await new Promise<void>((res, rej) => jsonl.end((err?: Error | null) => (err ? rej(err) : res())));

  const finishedAt = new Date();
  const meta: RunMeta = {
    command: commandLine(argv),
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    wallSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    machine: { ...machine, uptimeAtEnd: uptime() },
    builds,
    sets: args.sets,
    setInfo: Object.fromEntries(
      args.sets.map((s) => {
        const { description, source, licence, reference } = manifest.sets[s];
        return [s, { description, source, licence, reference }];
      }),
    ),
    instances: instances.map((i) => ({
      set: i.set,
      name: i.name,
      n: i.n,
      referenceKind: i.referenceKind,
      storedReference: i.reference,
      hasDeadlines: i.hasDeadlines,
    })),
    seeds,
    budgets: args.budgets,
    threads,
    warmUpMs: WARM_UP_MS,
    skipped,
    notRun,
    warnings,
    errors,
  };
  writeFileSync(join(out, 'run.json'), JSON.stringify(meta, null, 1) + '\n');
  await writeReport(out, meta, results);
  say(`${meta.wallSeconds.toFixed(0)} s; ${meta.machine.uptimeAtEnd}`);
  if (errors > 0) fail(`${errors} solves failed; see the report`, 1);
}

function readResults(path: string): RawResult[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RawResult);
}

async function writeReport(out: string, meta: RunMeta, results: RawResult[]) {
  const summary = summarize({
    builds: meta.builds.map((b) => b.label),
    instances: meta.instances,
    seeds: meta.seeds,
    budgets: meta.budgets,
    results,
  });
  const html = await renderReport(meta, summary);
  writeFileSync(join(out, 'report.html'), html);
  say(
    `wrote ${join(out, 'report.html')} (${(html.length / 1024).toFixed(0)} KiB), ${join(out, 'results.jsonl')}, ${join(out, 'run.json')}`,
  );
  for (const s of summary) for (const b of s.budgets) for (const c of b.comparisons) say(`${s.set}: ${c.sentence}`);
}

main().catch((err) => {
  say(`failed: ${(err as Error)?.stack ?? String(err)}`);
  process.exit(1);
});
