#!/usr/bin/env node
// Runs the test files (test/**/*.test.ts) with node:test through tsx, on the project's runtime:
// started by another node (a shell's `node scripts/run-tests.mjs`), it re-runs itself on it.
//   node scripts/run-tests.mjs [path-substring ...]
// A run that finds no test file, or whose runner executes no test, fails.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, isOtherThan, projectRuntime, runtimeProblem } from './lib/runtime.mjs';

const runtime = projectRuntime();
const problem = runtimeProblem(runtime);
if (problem) {
  console.error(`run-tests: ${problem}`);
  process.exit(1);
}
if (isOtherThan(runtime)) {
  const r = spawnSync(runtime.path, [new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const PATTERN = 'test/**/*.test.ts';
const filters = process.argv.slice(2);
let targets = [PATTERN]; // node --test expands the glob itself
if (filters.length > 0) {
  targets = fs.globSync(PATTERN, { cwd: ROOT }).sort().filter((f) => filters.some((p) => f.includes(p)));
  if (targets.length === 0) {
    console.error(`run-tests: no test file matches ${filters.join(', ')}`);
    process.exit(1);
  }
}
const runtimeLine = `Node ${process.version} (${process.execPath})`;
console.log(`run-tests: ${runtimeLine}`);

const tapFile = join(fs.mkdtempSync(join(tmpdir(), 'run-tests-')), 'report.tap');
const result = spawnSync(
  process.execPath,
  [
    '--import', 'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
    ...targets,
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);

const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
const count = (key) => Number((tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
const tests = count('tests');
console.log(`\n${count('pass')} passed, ${count('fail')} failed, ${count('skipped')} skipped on ${runtimeLine}`);
if (tests === 0) {
  console.error('run-tests: the runner executed no test');
  process.exit(1);
}
process.exit(result.status ?? 1);
