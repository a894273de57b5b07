/** bench:solver -- --solomon: the DESIGN.md contract of its --json lines, its table and its argument errors. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  checkSolomon,
  loadSolomonDir,
  parseSolomon,
  solomonClass,
  stratifiedSample,
} from '../../scripts/lib/solomon.js';
import { ROOT } from './helpers.js';

const benchDir = (dir: string, args: string[]) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/bench-solver.ts'), '--solomon', join(ROOT, dir), ...args],
    { cwd: ROOT, encoding: 'utf8' },
  );
const bench = (args: string[]) => benchDir('data/solomon', args);

test('--json: one re-checkable line per instance {"instance","routes","distance","vehicles","ms"}', () => {
  const r = bench(['--max-iterations', '30', '--only', 'C101,R201', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => l.instance),
    ['C101', 'R201'],
  );
  for (const l of lines) {
    assert.deepEqual(Object.keys(l).slice(0, 5), ['instance', 'routes', 'distance', 'vehicles', 'ms']);
    assert.equal(l.vehicles, l.routes.length);
    const inst = parseSolomon(readFileSync(join(ROOT, 'data/solomon', `${l.instance}.txt`), 'utf8'));
    assert.ok(Math.abs(checkSolomon(inst, l.routes).distance - l.distance) < 1e-9);
  }
});

test('the table: per instance and per class, feasibility, both totals, the gap', () => {
  const r = bench(['--max-iterations', '20', '--only', 'RC1', '--objective', 'vehicles']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /objective vehicles then distance/);
  assert.match(r.stdout, /^RC101\s+yes\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+-?[\d.]+/m);
  assert.match(r.stdout, /^RC1\s+8\s+8\s/m);
  assert.match(r.stdout, /^all\s+8\s+8\s/m);
});

test('--objective service --stall N: the service objective, stopped after N iterations without improvement', () => {
  const r = bench([
    '--max-iterations',
    '100000',
    '--stall',
    '20',
    '--only',
    'C101,R201',
    '--objective',
    'service',
    '--json',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => l.instance),
    ['C101', 'R201'],
  );
  for (const l of lines) {
    assert.ok(l.feasible && l.iterations >= l.bestIteration + 20 && l.iterations < 100_000, JSON.stringify(l));
    assert.ok(Number.isInteger(l.duration) && l.duration > 0);
  }
});

test('bad arguments: one line and exit 2, no stack trace', () => {
  for (const args of [
    ['--objective', 'fastest'],
    ['--time-limit-ms', '-1'],
    ['--only', 'X9'],
    ['--stall', 'soon'],
    ['--wasm', 'no-such-build.wasm'],
    ['--wasm', 'package.json'],
    ['--wasm', 'package.json', '--workers', '2'],
    ['--seeds', '0'],
    ['--workers', '0'],
    ['--shard', '2/2'],
  ]) {
    const r = bench(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /^bench-solver: /);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
});

const withoutTimes = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => {
      const { ms, ...rest } = JSON.parse(l);
      assert.ok(ms >= 0);
      return rest;
    });

test('--seeds K --workers N: each instance once per seed, the same lines as from one process, in the same order', () => {
  const args = ['--max-iterations', '30', '--only', 'C101,R201,RC105', '--seeds', '2', '--json'];
  const alone = bench(args);
  assert.equal(alone.status, 0, alone.stderr);
  const lines = withoutTimes(alone.stdout);
  assert.deepEqual(
    lines.map((l) => `${l.instance}#${l.seed}`),
    ['C101#1', 'C101#2', 'R201#1', 'R201#2', 'RC105#1', 'RC105#2'],
  );
  const shared = bench([...args, '--workers', '2']);
  assert.equal(shared.status, 0, shared.stderr);
  assert.deepEqual(withoutTimes(shared.stdout), lines);
  // a worker's part: the runs whose index is 1 modulo 2
  const part = bench([...args, '--shard', '1/2']);
  assert.equal(part.status, 0, part.stderr);
  assert.deepEqual(withoutTimes(part.stdout), [lines[1], lines[3], lines[5]]);
});

test("--seeds: the table adds each seed's mean gap and their spread", () => {
  const r = bench(['--max-iterations', '20', '--only', 'C101,R201', '--seeds', '2', '--workers', '2']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /seeds 1\.\.2, 2 worker processes/);
  assert.match(r.stdout, /^R201\s+yes\s+\d+\s.*\s2$/m);
  assert.match(r.stdout, /^all\s+4\s+4\s/m);
  assert.match(r.stdout, /^seed\s+n\s+feasible\s+mean gap%$/m);
  assert.match(r.stdout, /^1\s+2\s+2\s+[\d.]+$/m);
  assert.match(
    r.stdout,
    /^over the seeds: mean [\d.]+ % \(95 % interval -?[\d.]+–[\d.]+ %\), least [\d.]+ %, most [\d.]+ %$/m,
  );
});

test('Gehring–Homberger: --size and --sample pick a stratified, repeatable set; plans solved and re-checked on truncated arcs', () => {
  const r = benchDir('data/homberger', ['--size', '200', '--sample', '6', '--max-iterations', '20', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => solomonClass(l.instance)),
    ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2'],
  );
  const { bks } = loadSolomonDir(join(ROOT, 'data/homberger'));
  for (const l of lines) {
    assert.match(l.instance, /^(C|R|RC)[12]_2_\d+$/);
    assert.ok(l.feasible, JSON.stringify(l));
    const inst = parseSolomon(readFileSync(join(ROOT, 'data/homberger', `${l.instance}.txt`), 'utf8'));
    const checked = checkSolomon(inst, l.routes, 'dimacs');
    // on truncated arcs the checked total is the truncated total itself, and the gap is against the DIMACS value
    assert.ok(
      Math.abs(checked.distance - l.distance) < 1e-6 && Math.abs(checked.tenths - l.truncated) < 1e-6,
      JSON.stringify(l),
    );
    const best = bks.get(l.instance)!.distanceOnly;
    assert.ok(Math.abs(l.gap - (100 * (l.truncated - best)) / best) < 1e-3);
  }
  const again = benchDir('data/homberger', ['--size', '200', '--sample', '6', '--max-iterations', '20', '--json']);
  assert.deepEqual(
    again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).instance),
    lines.map((l) => l.instance),
  );
});

test('the DIMACS check adds whole tenths: a route whose start meets a due exactly is on time', () => {
  // a route of a C1_10_7 plan: in doubles its truncated arcs added up to 736.0000000000001 at job 178 (due 736)
  const all = parseSolomon(readFileSync(join(ROOT, 'data/homberger', 'C1_10_7.txt'), 'utf8'));
  const customers = [660, 164, 323, 242, 419, 179, 622, 450, 290];
  // the instance of these customers alone (customer i + 1 is the i-th of them)
  const inst = { ...all, nodes: [all.nodes[0], ...customers.map((c) => all.nodes[c])] };
  const route = customers.map((_, i) => i + 1);
  const { distance, tenths } = checkSolomon(inst, [route], 'dimacs');
  assert.equal(distance, tenths);
  // still a check: the same stops backwards break a window
  assert.throws(() => checkSolomon(inst, [[...route].reverse()], 'dimacs'), /after its due/);
});

test('the DIMACS convention is read from the bks.csv header; the table says so', () => {
  assert.equal(loadSolomonDir(join(ROOT, 'data/homberger')).convention, 'dimacs');
  assert.equal(loadSolomonDir(join(ROOT, 'data/solomon')).convention, 'solomon');
  const r = benchDir('data/homberger', ['--size', '200', '--only', 'C1_2_1', '--max-iterations', '5']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /DIMACS convention: arcs truncated to one decimal/);
  assert.match(r.stdout, /^C1_2_1\s+yes\s/m);
});

test("stratifiedSample: the same number per class, evenly spaced, in the instances' order", () => {
  const { instances } = loadSolomonDir(join(ROOT, 'data/homberger'));
  const at200 = instances.filter((i) => i.nodes.length === 201);
  assert.equal(at200.length, 60);
  const sample = stratifiedSample(at200, 12);
  assert.equal(sample.length, 12);
  for (const cls of ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2']) {
    assert.deepEqual(
      sample.filter((i) => solomonClass(i.name) === cls).map((i) => i.name.split('_')[2]),
      ['3', '8'],
    );
  }
  assert.equal(stratifiedSample(at200, 7).filter((i) => solomonClass(i.name) === 'C1').length, 2);
});

test('--size with no instance of that size: one line naming the filter, exit 2', () => {
  const r = benchDir('data/homberger', ['--size', '300', '--max-iterations', '5']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^bench-solver: no Solomon instance \(\*\.txt\) in .* of 300 customers/);
});
