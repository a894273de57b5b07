/**
 * Runs the crate's own Rust tests (`cargo test`, debug build: every operator's
 * debug assertion that the applied cost equals the evaluated one is on) as
 * part of `npm test`.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, findCargo } from './helpers.js';
import { MissingPrerequisite } from '../helpers/prerequisites.js';

test(
  'cargo test: operator deltas, exact solver vs brute force, permutations, planted deadlines, determinism',
  { timeout: 900_000 },
  () => {
    const cargo = findCargo();
    if (!cargo) throw new MissingPrerequisite("cargo (the Rust toolchain, for the solver crate's tests)");
    const crate = join(ROOT, 'solver-rs');
    const version = execFileSync(cargo, ['--version'], { encoding: 'utf8' })
      .trim()
      .replace(/[^\w.]+/g, '-');
    const r = spawnSync(cargo, ['test', '--quiet'], {
      cwd: crate,
      env: { ...process.env, CARGO_TARGET_DIR: join(crate, 'target', `test-${version}`) },
      encoding: 'utf8',
    });
    const output = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.status, 0, output.slice(-4000));
    const passed = [...output.matchAll(/test result: ok\. (\d+) passed/g)].reduce((s, m) => s + Number(m[1]), 0);
    assert.ok(passed >= 10, `expected the crate's tests to run, got ${passed}:\n${output.slice(-2000)}`);
  },
);
