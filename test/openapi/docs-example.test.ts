/**
 * docs/api.md's generated-client example, as printed: the versions it pins are the ones installed
 * here; its `npx openapi-typescript` step, run with that version against a running server, writes
 * api.ts; its main.ts type-checks in a Node ESM project (NodeNext) with that TypeScript and runs on
 * Node, calling the server with a test key. Only the server address is changed.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { marked, type Tokens } from 'marked';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENTED_SERVER = 'http://localhost:3000';

/** The sh and ts code blocks of the "Generated clients" section. */
function example(): { commands: string[]; main: string } {
  const api = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const section = api.slice(api.indexOf('## Generated clients'));
  const blocks = marked.lexer(section).filter((t): t is Tokens.Code => t.type === 'code');
  const sh = blocks.find((b) => b.lang === 'sh' && b.text.includes('npx openapi-typescript'));
  const ts = blocks.find((b) => b.lang === 'ts' && b.text.startsWith('// main.ts'));
  assert.ok(sh && ts, 'docs/api.md "Generated clients" has the sh commands and main.ts');
  return { commands: sh.text.split('\n'), main: ts.text };
}

/** A child process of this node, awaited without blocking the event loop (the server answers from this process). */
function run(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const installed = (name: string): string =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

let server: TestServer;
let dir: string;
before(async () => {
  server = await startTestServer();
  dir = tempDir('ros-client-example-');
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'module', private: true }, null, 2)}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify({ compilerOptions: { module: 'NodeNext', strict: true, noEmit: true } }, null, 2)}\n`,
  );
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir'); // what the npm install lines bring
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the versions the example pins are the ones the tests run (openapi-fetch, openapi-typescript, TypeScript 5, @types/node)', () => {
  const pinned = new Map(
    [
      ...example()
        .commands.join(' ')
        .matchAll(/(?:^|\s)((?:@[\w-]+\/)?[\w-]+)@(\d+\.\d+\.\d+)/g),
    ].map((m) => [m[1], m[2]]),
  );
  assert.deepEqual([...pinned.keys()].sort(), ['@types/node', 'openapi-fetch', 'openapi-typescript', 'typescript']);
  for (const [name, version] of pinned)
    assert.equal(version, installed(name), `${name}@${version} in docs/api.md, ${installed(name)} installed`);
  assert.match(pinned.get('typescript')!, /^5\./, 'openapi-typescript 7 needs TypeScript 5');
});

test('as printed: openapi-typescript writes api.ts, main.ts (./api.js) type-checks under NodeNext, and runs against the server', async () => {
  const { commands, main } = example();
  const generate = commands
    .find((c) => c.startsWith('npx openapi-typescript '))!
    .split(/\s+/)
    .slice(2);
  assert.deepEqual(generate, [`${DOCUMENTED_SERVER}/api/v1/openapi.json`, '-o', 'api.ts']);
  const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  const generated = await run([cli, generate[0]!.replace(DOCUMENTED_SERVER, server.url), ...generate.slice(1)]);
  assert.equal(generated.status, 0, generated.stderr);
  assert.match(readFileSync(join(dir, 'api.ts'), 'utf8'), /export interface paths/);

  assert.ok(main.includes(`baseUrl: '${DOCUMENTED_SERVER}'`));
  writeFileSync(join(dir, 'main.ts'), main.replace(DOCUMENTED_SERVER, server.url));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const checked = await run([tsc, '-p', dir]);
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);

  const key = await server.createKey('test');
  const ran = await run(['main.ts'], { ...process.env, KEY: key });
  assert.equal(ran.status, 0, ran.stderr);
  assert.match(
    ran.stdout,
    /^\[ '[ab]', '[ab]' \] \[\n\s+\{ colisId: '[ab]', arrivee: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ' \}/,
  );

  // the mistake the page warns about: without the extension, NodeNext refuses the import
  writeFileSync(join(dir, 'main.ts'), main.replace("from './api.js'", "from './api'"));
  const extensionless = await run([tsc, '-p', dir]);
  assert.notEqual(extensionless.status, 0);
  assert.match(extensionless.stdout, /TS2835|Relative import paths need explicit file extensions/);
});
