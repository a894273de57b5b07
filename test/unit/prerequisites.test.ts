/**
 * A missing test prerequisite (Chromium, PostgreSQL, cargo) is reported as one
 * line naming scripts/setup-test-deps.sh, without a stack trace.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const HELPER = fileURLToPath(new URL('../helpers/prerequisites.ts', import.meta.url));

test('a test file whose prerequisite is missing fails with one line naming the setup script', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ros-prereq-'));
  try {
    const file = join(dir, 'needs-chromium.test.ts');
    writeFileSync(
      file,
      [
        `import { before, test } from 'node:test';`,
        `import { MissingPrerequisite } from ${JSON.stringify(HELPER)};`,
        `before(() => { throw new MissingPrerequisite('Chromium (/nonexistent/chromium, for the browser tests)'); });`,
        `test('drives the console', () => {});`,
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      // without this the child reports to this runner instead of running as a test run of its own
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.notEqual(run.status, 0, 'the run fails');
    assert.match(
      output,
      /Chromium \(\/nonexistent\/chromium, for the browser tests\) is missing: run "bash scripts\/setup-test-deps\.sh" \(Debian\/Ubuntu, as root or with sudo\) to install the test prerequisites\./,
    );
    assert.doesNotMatch(output, /^\s+at .+:\d+:\d+\)?$/m, `no stack trace:\n${output}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('scripts/setup-test-deps.sh names every Debian package the tests need, and .ci/run uses it', async () => {
  const { readFileSync } = await import('node:fs');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const script = readFileSync(join(root, 'scripts/setup-test-deps.sh'), 'utf8');
  const packages = /^PACKAGES=\(([^)]*)\)$/m.exec(script)?.[1].split(/\s+/) ?? [];
  for (const p of ['chromium', 'fonts-dejavu-core', 'postgresql', 'rustc', 'cargo', 'libstd-rust-dev-wasm32', 'lld-14'])
    assert.ok(packages.includes(p), p);
  assert.match(readFileSync(join(root, '.ci/run'), 'utf8'), /^\s*bash scripts\/setup-test-deps\.sh$/m);
  const check = spawnSync('bash', ['-n', join(root, 'scripts/setup-test-deps.sh')], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
});
