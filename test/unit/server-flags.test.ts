/** Every way of starting the server passes the same Node flags (scripts/lib/server-flags.mjs). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SERVER_NODE_FLAGS } from '../../scripts/lib/server-flags.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

test('npm start, the Containerfile, the executable and the benches start the server with SERVER_NODE_FLAGS', () => {
  assert.ok(SERVER_NODE_FLAGS.length > 0);
  const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start!;
  assert.equal(start, `exec node ${SERVER_NODE_FLAGS.join(' ')} scripts/dist.mjs main`);
  const cmd = /^CMD (\[.*\])$/m.exec(read('deploy/Containerfile'))?.[1];
  assert.deepEqual(JSON.parse(cmd!), ['node', ...SERVER_NODE_FLAGS, 'dist/main.js']);
  assert.match(
    read('scripts/build.mjs'),
    /execArgv: \[\.\.\.SERVER_NODE_FLAGS\]/,
    'the executable embeds them (sea-config execArgv)',
  );
  assert.match(
    read('scripts/lib/service-process.ts'),
    /\[\.\.\.SERVER_NODE_FLAGS, 'dist\/main\.js'\]/,
    'the benches run dist/ with them',
  );
  for (const flag of SERVER_NODE_FLAGS)
    assert.ok(read('docs/self-hosting.md').includes(`node ${flag} dist/main.js`), `docs name ${flag}`);
});
