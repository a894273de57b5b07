/** The allowed import directions of src/ (docs/architecture.md), and a check of the checker on a fixture that breaks them. */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import ts from 'typescript';
import { SCRIPTS_RULES, SRC_RULES, checkImports, describeViolation, partOf } from './import-rules.js';
import { checkSuffixes, describeSuffixViolation, nativeWorkerGraph } from './import-suffix.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture/src/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = join(ROOT, 'scripts');
const SUFFIX_FIXTURE = fileURLToPath(new URL('./fixture/suffix/', import.meta.url));

test('src/ imports only in the allowed directions (docs/architecture.md)', () => {
  const violations = checkImports(SRC, SRC_RULES);
  assert.deepEqual(violations.map(describeViolation), []);
});

test('every part a rule names exists in src/ (a rule about a renamed part could never fail)', () => {
  const parts = new Set(readdirSync(SRC).map((name) => name.replace(/\.ts$/, '')));
  const named = SRC_RULES.flatMap((r) => [...r.from, ...r.never]).filter((p) => p !== '*' && !p.startsWith('../'));
  assert.deepEqual(named.filter((p) => !parts.has(p)), []);
});

test('the checker fails on a fixture that breaks the rules: static, re-exported and dynamic imports, nothing else', () => {
  const violations = checkImports(FIXTURE, SRC_RULES);
  assert.deepEqual(violations.map((v) => `${v.file}:${v.line} ${v.fromPart}→${v.toPart}`).sort(), [
    'http/fine.ts:2 http→store',
    'payments/re-export.ts:2 payments→api',
    'payments/re-export.ts:3 payments→api',
    'store/bad.ts:2 store→api',
  ]);
  assert.match(describeViolation(violations.find((v) => v.fromPart === 'store')!), /store\/bad\.ts:2 imports '\.\.\/api\/thing\.js' \(store → api\): the domain parts never know/);
});

test('a part is the first folder below the root, a file at the root is its own part, and what lies outside is ../<folder>', () => {
  assert.equal(partOf('/r/src', '/r/src/store/keys/sqlite.ts'), 'store');
  assert.equal(partOf('/r/src', '/r/src/services.ts'), 'services');
  assert.equal(partOf('/r/src', '/r/test/helpers/process.js'), '../test');
});

test('the billing rules are pure: src/billing/rules/ imports nothing outside itself, and no package', () => {
  const dir = join(SRC, 'billing', 'rules');
  const outside = readdirSync(dir).flatMap((file) => ts.preProcessFile(readFileSync(join(dir, file), 'utf8'), true, true).importedFiles
    .map((i) => i.fileName).filter((name) => !name.startsWith('./')).map((name) => `${file}: ${name}`));
  assert.deepEqual(outside, []);
});

test('the domain parts and payments neither import the HTTP layer or the API nor write HTTP answers', () => {
  const parts = ['billing', 'payments', 'geo', 'solver', 'store'];
  for (const part of parts) {
    const rule = SRC_RULES.find((r) => r.from.includes(part));
    assert.ok(rule && rule.never.includes('http') && rule.never.includes('api'), `${part} must never import http/ or api/`);
  }
  // a status or an answer header is the HTTP layer's to write, from the DomainError's code (src/http/errors.ts)
  const answering = /\bctx\.(status|set)\b|['"](Retry-After|RateLimit-\w+|WWW-Authenticate)['"]/;
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && answering.test(readFileSync(path, 'utf8'))) found.push(path.slice(SRC.length));
    }
  };
  for (const part of parts) walk(join(SRC, part));
  assert.deepEqual(found, []);
});

test('one import suffix: .js, but .ts in what a worker thread loads without tsx (src/, scripts/, test/)', () => {
  const graph = nativeWorkerGraph(ROOT);
  for (const file of ['src/solver/worker.ts', 'src/solver/abi.ts', 'scripts/lib/compare/solve-task.ts']) assert.ok(graph.has(join(ROOT, file)), file);
  assert.ok(!graph.has(join(ROOT, 'src/solver/pool.ts')), 'the pool runs in the main thread');
  const violations = checkSuffixes(ROOT, ['src', 'scripts', 'test'], graph, (path) => path.startsWith(join(ROOT, 'test/architecture/fixture')));
  assert.deepEqual(violations.map(describeSuffixViolation), []);
});

test('the suffix check fails on a fixture that mixes them', () => {
  const violations = checkSuffixes(SUFFIX_FIXTURE, ['.'], nativeWorkerGraph(SUFFIX_FIXTURE, ['worker/entry.ts']));
  assert.deepEqual(violations.map(describeSuffixViolation).sort(), [
    "outside.ts:2 imports './common.ts': use .js",
    "outside.ts:5 imports './worker/entry': use .js",
    "worker/entry.ts:3 imports './helper.js': use .ts",
  ]);
});

test('scripts/ never import test/: the benches and tools carry what they need (scripts/lib) or take it from src/', () => {
  assert.deepEqual(checkImports(SCRIPTS, SCRIPTS_RULES).map(describeViolation), []);
});
