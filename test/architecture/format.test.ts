/** One format: Prettier (.prettierrc.json, .prettierignore) holds for every file it covers; `npm run format` fixes it. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const PRETTIER = join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs');

test('every file Prettier covers is formatted (run npm run format)', () => {
  const r = spawnSync(process.execPath, [PRETTIER, '--check', '--log-level', 'warn', '.'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `not formatted (npm run format fixes them):\n${r.stdout}${r.stderr}`);
});

test('the check sees a badly formatted file', () => {
  const r = spawnSync(process.execPath, [PRETTIER, '--check', '--stdin-filepath', 'src/x.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    input: 'export const x = {a:1,\n b:  2}\n',
  });
  assert.notEqual(r.status, 0);
});
