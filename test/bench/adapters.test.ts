/**
 * The build adapters of bench:compare: the frozen ABI-1 reader, improvement
 * events, the native build (cargo), and the external-solver adapters' file
 * formats through fake LKH / linkern / vroom executables (the real ones are
 * not installed here): each must write the instance, read the route back and
 * have it scored by our evaluator.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { compileSolverModule } from '../../src/solver/load.js';
import { resolveBuilds } from '../../scripts/lib/compare/builds.js';
import { readEdgeTour, readTsplibTour } from '../../scripts/lib/compare/external.js';
import { loadSet } from '../../scripts/lib/compare/instances.js';
import { readManifest } from '../../scripts/lib/compare/manifest.js';
import { planTasks } from '../../scripts/lib/compare/run.js';
import { runSolveTask } from '../../scripts/lib/compare/solve-task.js';
import { readEvents, solveAbi1, wasmSolve } from '../../scripts/lib/compare/wasm-build.js';
import { routeCost } from '../../scripts/lib/route-cost.js';
import { SOLVER_WASM } from './helpers.js';
import { solverBuildFile } from '../helpers/solver-builds.js';

const manifest = readManifest();
const eil51 = loadSet(manifest, 'tsplib').find((i) => i.name === 'eil51')!;
const planted = loadSet(manifest, 'deadlines').find((i) => i.name === 'tight-50/2000')!;
const paris = loadSet(manifest, 'city').find((i) => i.name === 'paris-50')!;

test("the frozen ABI-1 reader gives the service marshalling's routes at fixed iterations", (t) => {
  // an ABI 3 build (its `solve` is ABI 1's; ABI 4 reads deadlines and writes its output otherwise)
  const file = solverBuildFile(t, '12fcdfc', 'the ABI 3 build');
  if (!file) return;
  const module = compileSolverModule(file);
  for (const inst of [eil51, planted, paris]) {
    const o = { seed: 3, budgetMs: 0, maxIterations: 300 };
    const viaService = wasmSolve(module, 3, inst.problem, o);
    const frozen = solveAbi1(module, inst.problem, o);
    assert.deepEqual(frozen.order, viaService.order, inst.name);
    assert.deepEqual(frozen.reported, routeCost(inst.problem, frozen.order));
    assert.equal(frozen.events, null);
  }
  assert.throws(
    () => wasmSolve(compileSolverModule(SOLVER_WASM), 7, eil51.problem, { seed: 1, budgetMs: 1 }),
    /speaks ABI 7/,
  );
});

test('improvement events are read in the shapes a solver layer may return', () => {
  assert.equal(readEvents(undefined), null);
  assert.deepEqual(
    readEvents([
      { elapsedMs: 2, latenessS: 0, durationS: 90 },
      { ms: 1, durationS: 100 },
    ]),
    [
      { ms: 1, latenessS: 0, durationS: 100 },
      { ms: 2, latenessS: 0, durationS: 90 },
    ],
  );
  assert.deepEqual(
    readEvents([
      [0.5, 10, 300],
      [3, 0, 320],
    ]),
    [
      { ms: 0.5, latenessS: 10, durationS: 300 },
      { ms: 3, latenessS: 0, durationS: 320 },
    ],
  );
  assert.deepEqual(readEvents(new Float64Array([4, 0, 250, 1, 5, 260])), [
    { ms: 1, latenessS: 5, durationS: 260 },
    { ms: 4, latenessS: 0, durationS: 250 },
  ]);
  assert.throws(() => readEvents(new Float64Array([1, 2])), /not \[ms, lateness, duration\] triples/);
  assert.deepEqual(readEvents([{ ms: 7, iteration: 3, cost: { lateness: 0, duration: 410 } }]), [
    { ms: 7, latenessS: 0, durationS: 410 },
  ]);
  assert.throws(() => readEvents([{ when: 1 }]), /no finite time and cost/);
});

test('native build: built with cargo, solves under the budget, scored by our evaluator', () => {
  const skipped: string[] = [];
  const [native] = resolveBuilds(['native'], skipped);
  assert.deepEqual(skipped, []);
  assert.equal(native.kind, 'native');
  assert.match(native.sha256, /^[0-9a-f]{64}$/);
  for (const inst of [eil51, planted]) {
    const r = runSolveTask({ build: native, instance: inst, seed: 1, budgetMs: 20 });
    assert.equal(r.status, 'ok', r.error);
    assert.deepEqual({ latenessS: r.latenessS, durationS: r.durationS }, routeCost(inst.problem, r.order!));
  }
});

test('native build without cargo: skipped with one line', () => {
  const saved = { PATH: process.env.PATH, HOME: process.env.HOME };
  process.env.PATH = mkdtempSync(join(tmpdir(), 'no-cargo-'));
  process.env.HOME = process.env.PATH;
  try {
    const skipped: string[] = [];
    assert.deepEqual(resolveBuilds(['native', 'lkh'], skipped), []);
    assert.deepEqual(skipped, [
      'native: skipped, cargo is not installed (the native build needs a Rust toolchain)',
      'LKH-3: skipped, LKH (LKH-3) is not on PATH',
    ]);
  } finally {
    Object.assign(process.env, saved);
  }
});

/** Fake solver executables (node scripts) that read our files and answer in each solver's format. */
function fakeSolvers(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-solvers-'));
  const node = `#!${process.execPath}\nconst fs = require('fs');\n`;
  const dim = `const dim = Number(/DIMENSION\\s*:\\s*(\\d+)/.exec(fs.readFileSync(problem, 'utf8'))[1]);\n`;
  // LKH: tour rotated to start at the third node
  writeFileSync(
    join(dir, 'LKH'),
    node +
      `const par = fs.readFileSync(process.argv[2], 'utf8');
const get = (k) => new RegExp(k + '\\\\s*=\\\\s*(\\\\S+)').exec(par)[1];
const problem = get('PROBLEM_FILE');
if (!/TIME_LIMIT = \\d/.test(par) || !/SEED = \\d/.test(par)) process.exit(3);
${dim}const tour = [];
for (let k = 0; k < dim; k++) tour.push(((k + 2) % dim) + 1);
fs.writeFileSync(get('OUTPUT_TOUR_FILE'), 'NAME : x\\nTYPE : TOUR\\nDIMENSION : ' + dim + '\\nTOUR_SECTION\\n' + tour.join('\\n') + '\\n-1\\nEOF\\n');
`,
  );
  // linkern: the identity cycle walked backwards, as an edge file
  writeFileSync(
    join(dir, 'linkern'),
    node +
      `const a = process.argv.slice(2);
const out = a[a.indexOf('-o') + 1];
const problem = a[a.length - 1];
if (!a.includes('-t') || !a.includes('-s')) process.exit(3);
${dim}const seq = [0]; for (let k = dim - 1; k >= 1; k--) seq.push(k);
const lines = [dim + ' ' + dim]; for (let k = 0; k < dim; k++) lines.push(seq[k] + ' ' + seq[(k + 1) % dim] + ' 1');
fs.writeFileSync(out, lines.join('\\n') + '\\n');
`,
  );
  // vroom: the jobs in decreasing id
  writeFileSync(
    join(dir, 'vroom'),
    node +
      `const a = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(a[a.indexOf('-i') + 1], 'utf8'));
if (input.matrices.car.durations.length !== input.jobs.length + 1 + (input.vehicles[0].end_index === undefined ? 0 : 1)) process.exit(3);
const steps = [{ type: 'start' }, ...input.jobs.map((j) => j.id).sort((x, y) => y - x).map((id) => ({ type: 'job', id })), { type: 'end' }];
fs.writeFileSync(a[a.indexOf('-o') + 1], JSON.stringify({ code: 0, unassigned: [], routes: [{ vehicle: 1, steps }] }));
`,
  );
  for (const f of ['LKH', 'linkern', 'vroom']) chmodSync(join(dir, f), 0o755);
  return dir;
}

test('external adapters: write the instance, run the solver with the budget, read the route back', () => {
  const saved = process.env.PATH;
  process.env.PATH = `${fakeSolvers()}:${saved}`;
  try {
    const skipped: string[] = [];
    const builds = resolveBuilds(['lkh', 'linkern', 'vroom'], skipped);
    assert.deepEqual(
      builds.map((b) => b.label),
      ['LKH-3', 'linkern', 'VROOM'],
    );
    const [lkh, linkern, vroom] = builds;
    const n = (i: typeof eil51) => i.problem.size - 1 - (i.problem.hasEnd ? 1 : 0);
    const ascending = (i: typeof eil51) => Array.from({ length: n(i) }, (_, k) => k);
    for (const inst of [eil51, paris]) {
      // EUC_2D coordinates, and an explicit matrix
      const a = runSolveTask({ build: lkh, instance: inst, seed: 2, budgetMs: 50 });
      assert.equal(a.status, 'ok', a.error);
      assert.deepEqual(a.order, ascending(inst));
      assert.equal(a.durationS, routeCost(inst.problem, a.order!).durationS);
      const b = runSolveTask({ build: linkern, instance: inst, seed: 2, budgetMs: 50 });
      assert.equal(b.status, 'ok', b.error);
      assert.deepEqual(b.order, ascending(inst).reverse());
    }
    const v = runSolveTask({ build: vroom, instance: planted, seed: 1, budgetMs: 50 });
    assert.equal(v.status, 'ok', v.error);
    assert.deepEqual(v.order, ascending(planted).reverse());
    assert.deepEqual({ latenessS: v.latenessS, durationS: v.durationS }, routeCost(planted.problem, v.order!));
    // the TSP solvers do not take deadlines: those runs are left out, with one line
    const { tasks, notRun } = planTasks({
      builds: [lkh, vroom],
      instances: [eil51, planted],
      seeds: [1],
      budgets: [10],
    });
    assert.equal(tasks.length, 3);
    assert.deepEqual(notRun, [
      'LKH-3: LKH-3 adapter solves plain tours: instances with deadlines are not run (deadlines): 1 runs not made',
    ]);
  } finally {
    process.env.PATH = saved;
  }
});

test('tour file readers', () => {
  assert.deepEqual(readTsplibTour('NAME : t\nTOUR_SECTION\n1\n3\n2\n-1\nEOF\n'), [0, 2, 1]);
  assert.deepEqual(readEdgeTour('3 3\n0 2 5\n2 1 4\n1 0 3\n'), [0, 2, 1]);
  assert.throws(() => readTsplibTour('nothing'), /no TOUR_SECTION/);
});
