/** Small modules: no source file in src/ grows past 400 lines (docs/architecture.md). */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const MAX_LINES = 400;

test(`no TypeScript file in src/ is over ${MAX_LINES} lines`, () => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 50, `found ${files.length} files`);
  const long = files
    .map((f) => ({ file: relative(SRC, join(SRC, f)), lines: readFileSync(join(SRC, f), 'utf8').split('\n').length }))
    .filter((f) => f.lines > MAX_LINES);
  assert.deepEqual(long, []);
});
