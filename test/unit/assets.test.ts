import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assetPath, baseDir, layout, solverWorkerFile, sqliteNativeBinding } from '../../src/assets.js';

const sources = JSON.parse(readFileSync(new URL('../../src/asset-sources.json', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

test('from source, every asset key resolves to its file or folder in the repository', () => {
  assert.equal(layout, 'source');
  for (const [key, path] of Object.entries(sources)) {
    assert.equal(assetPath(key), join(baseDir(), path).replace(/\/$/, ''), key);
    assert.ok(existsSync(assetPath(key)), `${key} → ${assetPath(key)}`);
  }
});

test('folders: a listed folder, a folder inside it, and the folder of listed files', () => {
  assert.ok(statSync(assetPath('console')).isDirectory());
  assert.ok(existsSync(join(assetPath('console'), 'index.html')));
  assert.ok(existsSync(join(assetPath('migrations/sqlite'), '001_init.sql')));
  assert.ok(existsSync(join(assetPath('swagger-ui'), 'swagger-ui-bundle.js')));
  assert.ok(existsSync(join(assetPath('gazetteer'), 'fr-communes.json')));
  assert.throws(() => assetPath('nothing/here'), /unknown asset nothing\/here/);
});

test('from source, the worker is the tsx bootstrap and better-sqlite3 finds its own addon', () => {
  assert.equal(solverWorkerFile(), join(baseDir(), 'src', 'solver', 'worker.mjs'));
  assert.equal(sqliteNativeBinding(), undefined);
});
