#!/usr/bin/env node
// Runs the test files (test/**/*.test.ts) with node:test through tsx, on the project's runtime:
// started by another node (a shell's `node scripts/run-tests.mjs`), it re-runs itself on it.
//   node scripts/run-tests.mjs [path-substring ...]
// A run that finds no test file, or whose runner executes no test, fails.
import { spawn, spawnSync } from 'node:child_process';
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
  const r = spawnSync(runtime.path, [new URL(import.meta.url).pathname, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const PATTERN = 'test/**/*.test.ts';
const filters = process.argv.slice(2);
let targets = [PATTERN]; // node --test expands the glob itself
if (filters.length > 0) {
  targets = fs
    .globSync(PATTERN, { cwd: ROOT })
    .sort()
    .filter((f) => filters.some((p) => f.includes(p)));
  if (targets.length === 0) {
    console.error(`run-tests: no test file matches ${filters.join(', ')}`);
    process.exit(1);
  }
}
const runtimeLine = `Node ${process.version} (${process.execPath})`;
console.log(`run-tests: ${runtimeLine}`);

const TEST_TIMEOUT_MS = 5 * 60_000;
const RUN_TIMEOUT_MS = 60 * 60_000;

const tapFile = join(fs.mkdtempSync(join(tmpdir(), 'run-tests-')), 'report.tap');
// its own process group, so that a run past RUN_TIMEOUT_MS is stopped with every test file and server it started
const runner = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    // a test that hangs fails after TEST_TIMEOUT_MS instead of holding CI until its own limit, and a file whose
    // tests are over exits even if a failed test left a server, a socket or a timer behind
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tapFile}`,
    ...targets,
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' }, detached: true },
);
const killGroup = (signal) => {
  try {
    process.kill(-runner.pid, signal);
  } catch {
    /* already gone */
  }
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => killGroup(signal));
const timer = setTimeout(() => {
  console.error(`run-tests: the test run took longer than ${RUN_TIMEOUT_MS / 60_000} minutes and was stopped`);
  killGroup('SIGKILL');
}, RUN_TIMEOUT_MS);
const status = await new Promise((resolve) => runner.on('exit', (code) => resolve(code)));
clearTimeout(timer);
killGroup('SIGKILL'); // nothing a test file started outlives the run

const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
const count = (key) => Number((tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
const tests = count('tests');
console.log(`\n${count('pass')} passed, ${count('fail')} failed, ${count('skipped')} skipped on ${runtimeLine}`);
if (tests === 0) {
  console.error('run-tests: the runner executed no test');
  process.exit(1);
}
process.exit(status ?? 1);
