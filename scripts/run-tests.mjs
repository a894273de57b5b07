#!/usr/bin/env node
// Runs every test file under test/ with node:test through tsx.
// Node 20 neither discovers .ts files nor expands globs, so we list them here.
// A run that finds no test file, or whose runner executes no test, fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

let files = findTests(join(root, 'test')).map((f) => relative(root, f));
if (filters.length > 0) files = files.filter((f) => filters.some((p) => f.includes(p)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}

const tapFile = join(mkdtempSync(join(tmpdir(), 'run-tests-')), 'report.tap');
const result = spawnSync(
  process.execPath,
  [
    '--import', 'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);

const tap = readFileSync(tapFile, 'utf8');
const count = (key) => Number((tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
const tests = count('tests');
const pass = count('pass');
const fail = count('fail');
const skipped = count('skipped');
console.log(`\n${pass} passed, ${fail} failed, ${skipped} skipped`);
if (tests === 0) {
  console.error('run-tests: the runner executed no test');
  process.exit(1);
}
process.exit(result.status ?? 1);
