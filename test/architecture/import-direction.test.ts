/** The allowed import directions of src/ (docs/architecture.md), and a check of the checker on a fixture that breaks them. */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import ts from 'typescript';
import {
  SCRIPTS_RULES,
  SRC_LAYERS,
  SRC_RULES,
  SRC_SUBPARTS,
  checkImports,
  checkPicture,
  describeViolation,
  partOf,
} from './import-rules.js';
import { checkSuffixes, describeSuffixViolation, nativeWorkerGraph } from './import-suffix.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture/src/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = join(ROOT, 'scripts');
const SUFFIX_FIXTURE = fileURLToPath(new URL('./fixture/suffix/', import.meta.url));
const ARCHITECTURE = join(ROOT, 'docs', 'architecture.md');

test('src/ imports only in the allowed directions (docs/architecture.md)', () => {
  const violations = checkImports(SRC, SRC_RULES, SRC_SUBPARTS);
  assert.deepEqual(violations.map(describeViolation), []);
});

test('every part a rule names exists in src/ (a rule about a renamed part could never fail)', () => {
  const parts = new Set(readdirSync(SRC).map((name) => name.replace(/\.(ts|json)$/, '')));
  for (const dir of readdirSync(join(SRC, 'api'))) parts.add(`api/${dir}`);
  parts.add('billing/rules');
  const named = SRC_RULES.flatMap((r) => [...r.from, ...(r.but ?? []), ...r.never, ...(r.except ?? [])]).filter(
    (p) => p !== '*' && p !== 'api/*' && !p.startsWith('../') && !p.includes('/*/'),
  );
  assert.deepEqual(
    named.filter((p) => !parts.has(p) && !existsSync(join(SRC, `${p}.ts`))),
    [],
  );
});

test('every entry of src/ is in one layer, and the picture of docs/architecture.md shows exactly the entries of src/', () => {
  const members = SRC_LAYERS.flatMap((l) => l.members);
  const entries = readdirSync(SRC, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  assert.deepEqual([...members].sort(), entries);
  assert.deepEqual(checkPicture(SRC, readFileSync(ARCHITECTURE, 'utf8')), { unplaced: [], unknown: [] });
});

test('the picture check fails on a fixture picture that leaves a root file out and shows one that is gone', () => {
  const picture = checkPicture(FIXTURE, readFileSync(join(FIXTURE, '..', 'architecture.md'), 'utf8'));
  assert.deepEqual(picture, { unplaced: ['stray.ts'], unknown: ['gone.ts'] });
});

test('the checker fails on a fixture that breaks the rules: static, re-exported and dynamic imports, in .ts, .js and .mjs files, between parts and inside api/ and billing/', () => {
  const violations = checkImports(FIXTURE, SRC_RULES, SRC_SUBPARTS);
  assert.deepEqual(violations.map((v) => `${v.file}:${v.line} ${v.fromPart}→${v.toPart}`).sort(), [
    'api/openapi/document.ts:3 api/openapi→api/optimize',
    'api/plans/reuse.ts:3 api/plans→api/optimize',
    'billing/rules/debit.ts:2 billing/rules→billing',
    'calls/step.ts:2 calls→api/optimize',
    'console/static/app.js:2 console→services',
    'errors.ts:2 errors→http',
    'geo/cache.ts:2 geo→billing',
    'http/fine.ts:2 http→store',
    'payments/re-export.ts:2 payments→api/optimize',
    'payments/re-export.ts:3 payments→api/optimize',
    'solver/worker.mjs:2 solver→schedule',
    'store/bad.ts:2 store→api/optimize',
    'store/bad.ts:3 store→billing',
  ]);
  assert.match(
    describeViolation(violations.find((v) => v.file === 'store/bad.ts')!),
    /store\/bad\.ts:2 imports '\.\.\/api\/optimize\/thing\.js' \(store → api\/optimize\): the store runs SQL/,
  );
});

test('a part is the first folder below the root, or a finer cut (an endpoint of api/, billing/rules); a file at the root is its own part; what lies outside is ../<folder>', () => {
  assert.equal(partOf('/r/src', '/r/src/store/keys/sqlite.ts', SRC_SUBPARTS), 'store');
  assert.equal(partOf('/r/src', '/r/src/services.ts', SRC_SUBPARTS), 'services');
  assert.equal(partOf('/r/src', '/r/src/api/plans/router.ts', SRC_SUBPARTS), 'api/plans');
  assert.equal(partOf('/r/src', '/r/src/billing/rules/charges.ts', SRC_SUBPARTS), 'billing/rules');
  assert.equal(partOf('/r/src', '/r/src/billing/keys.ts', SRC_SUBPARTS), 'billing');
  assert.equal(partOf('/r/src', '/r/src/solver/worker.mjs', SRC_SUBPARTS), 'solver');
  assert.equal(partOf('/r/src', '/r/test/helpers/process.js'), '../test');
});

test('the billing rules are pure: src/billing/rules/ imports nothing outside itself, and no package', () => {
  const dir = join(SRC, 'billing', 'rules');
  const outside = readdirSync(dir).flatMap((file) =>
    ts
      .preProcessFile(readFileSync(join(dir, file), 'utf8'), true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((name) => !name.startsWith('./'))
      .map((name) => `${file}: ${name}`),
  );
  assert.deepEqual(outside, []);
});

test('the domain parts and payments neither import the HTTP layer or the API nor write HTTP answers', () => {
  const parts = ['billing', 'payments', 'geo', 'solver', 'store'];
  for (const part of parts) {
    const rule = SRC_RULES.find((r) => r.from.includes(part));
    assert.ok(
      rule && rule.never.includes('http') && rule.never.includes('api'),
      `${part} must never import http/ or api/`,
    );
  }
  // a status or an answer header is the HTTP layer's to write, from the DomainError's code (src/http/errors.ts)
  const answering = /\bctx\.(status|set)\b|['"](Retry-After|RateLimit-\w+|WWW-Authenticate)['"]/;
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && answering.test(readFileSync(path, 'utf8')))
        found.push(path.slice(SRC.length));
    }
  };
  for (const part of parts) walk(join(SRC, part));
  assert.deepEqual(found, []);
});

test('one import suffix: .js, but .ts in what a worker thread loads without tsx; a .js or .mjs module names the file as it is (src/, scripts/, test/)', () => {
  const graph = nativeWorkerGraph(ROOT);
  for (const file of ['src/solver/worker.ts', 'src/solver/abi.ts', 'scripts/lib/compare/solve-task.ts'])
    assert.ok(graph.has(join(ROOT, file)), file);
  assert.ok(!graph.has(join(ROOT, 'src/solver/pool.ts')), 'the pool runs in the main thread');
  const violations = checkSuffixes(ROOT, ['src', 'scripts', 'test'], graph, (path) =>
    path.startsWith(join(ROOT, 'test/architecture/fixture')),
  );
  assert.deepEqual(violations.map(describeSuffixViolation), []);
});

test('the suffix check fails on a fixture that mixes them, in .ts and .mjs files', () => {
  const violations = checkSuffixes(SUFFIX_FIXTURE, ['.'], nativeWorkerGraph(SUFFIX_FIXTURE, ['worker/entry.ts']));
  assert.deepEqual(violations.map(describeSuffixViolation).sort(), [
    "entry.mjs:3 imports './worker/helper.js': no such file (a .js or .mjs module names the file as it is)",
    "outside.ts:2 imports './common.ts': use .js",
    "outside.ts:5 imports './worker/entry': use .js",
    "worker/entry.ts:3 imports './helper.js': use .ts",
  ]);
});

test('scripts/ never import test/: the benches and tools carry what they need (scripts/lib) or take it from src/', () => {
  assert.deepEqual(checkImports(SCRIPTS, SCRIPTS_RULES).map(describeViolation), []);
});
