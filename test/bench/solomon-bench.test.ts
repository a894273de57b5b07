/** bench:solver -- --solomon: the DESIGN.md contract of its --json lines, its table and its argument errors. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { checkSolomon, parseSolomon } from '../../scripts/lib/solomon.js';
import { ROOT } from './helpers.js';

const bench = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/bench-solver.ts'), '--solomon', join(ROOT, 'data/solomon'), ...args], { cwd: ROOT, encoding: 'utf8' });

test('--json: one re-checkable line per instance {"instance","routes","distance","vehicles","ms"}', () => {
  const r = bench(['--max-iterations', '30', '--only', 'C101,R201', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.instance), ['C101', 'R201']);
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
  const r = bench(['--max-iterations', '100000', '--stall', '20', '--only', 'C101,R201', '--objective', 'service', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.instance), ['C101', 'R201']);
  for (const l of lines) {
    assert.ok(l.feasible && l.iterations >= l.bestIteration + 20 && l.iterations < 100_000, JSON.stringify(l));
    assert.ok(Number.isInteger(l.duration) && l.duration > 0);
  }
});

test('bad arguments: one line and exit 2, no stack trace', () => {
  for (const args of [['--objective', 'fastest'], ['--time-limit-ms', '-1'], ['--only', 'X9'], ['--stall', 'soon']]) {
    const r = bench(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /^bench-solver: /);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
});
