#!/usr/bin/env node
// Smoke test of the single executable, as a self-hoster would run it: the binary alone in an empty
// temporary directory, no node_modules anywhere above it, a PATH without node, a minimal environment.
//   node scripts/smoke-binary.mjs [dist/route-optimizer]
// Checks: version (the embedded Node), admin keys create (test and live), serve (time to /healthz,
// /readyz, console, API reference, /metrics not public), a test-key call (10 stops, exact solver) and
// a live-key call with 40 stops (the WASM search in a worker thread), admin db check, SIGTERM
// (/readyz 503 during the drain, exit 0, its private asset directory removed). Exit 1 on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ROOT, requiredMajor } from './lib/runtime.mjs';

const source = resolve(process.argv[2] ?? join(ROOT, 'dist', 'route-optimizer'));
const failures = [];
const check = (ok, what, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ` (${detail})` : ''}`);
  if (!ok) failures.push(what);
  return ok;
};
if (!existsSync(source)) {
  console.error(`smoke-binary: ${source} does not exist: run npm run build:binary`);
  process.exit(1);
}

const home = mkdtempSync(join(tmpdir(), 'ros-smoke-'));
for (let dir = home; dir !== dirname(dir); dir = dirname(dir)) {
  if (existsSync(join(dir, 'node_modules'))) {
    console.error(
      `smoke-binary: ${join(dir, 'node_modules')} exists, so the test would not prove anything; set TMPDIR elsewhere`,
    );
    process.exit(1);
  }
}
const bin = join(home, 'route-optimizer');
copyFileSync(source, bin);
mkdirSync(join(home, 'empty-path'));
mkdirSync(join(home, 'tmp'));
const port = await new Promise((r) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => r(p));
  });
});
const env = {
  PATH: join(home, 'empty-path'), // no node, no npm: the binary must need neither
  HOME: home,
  TMPDIR: join(home, 'tmp'),
  PORT: String(port),
  HOST: '127.0.0.1',
  DATABASE_PATH: join(home, 'var', 'service.db'),
  OUTBOX_DIR: join(home, 'var', 'outbox'),
  LOG_LEVEL: 'warn',
  SHUTDOWN_DRAIN_MS: '500',
};
const url = `http://127.0.0.1:${port}`;
const run = (...args) => spawnSync(bin, args, { cwd: home, env, encoding: 'utf8', timeout: 60_000 });
console.log(
  `smoke-binary: ${source} (${(statSync(source).size / 1024 / 1024).toFixed(1)} MiB) in ${home}, PATH=${env.PATH}`,
);

const version = run('version');
check(
  version.status === 0 && new RegExp(`^node v${requiredMajor()}\\.`, 'm').test(version.stdout),
  'version names the embedded Node',
  version.stdout.trim().split('\n').join('; ') || version.stderr.trim(),
);
check(spawnSync('sh', ['-c', 'command -v node'], { env }).status !== 0, 'no node on PATH');

mkdirSync(join(home, 'var'));
const testKey = run('admin', 'keys', 'create', '--kind', 'test');
check(
  testKey.status === 0 && /^svc_test_[A-Za-z0-9_-]{43}\n$/.test(testKey.stdout),
  'admin keys create --kind test prints the key alone on stdout',
  testKey.stderr.trim(),
);
const liveKey = run('admin', 'keys', 'create', '--kind', 'live', '--stops', '1000', '--email', 'smoke@example.com');
check(
  liveKey.status === 0 && /^svc_live_[A-Za-z0-9_-]{43}\n$/.test(liveKey.stdout),
  'admin keys create --kind live --stops 1000',
  liveKey.stderr.trim(),
);

const started = performance.now();
// debug: the start-up solver warm-up's line is checked below
const server = spawn(bin, ['serve'], {
  cwd: home,
  env: { ...env, LOG_LEVEL: 'debug' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
server.stdout.on('data', (d) => {
  output += d;
});
server.stderr.on('data', (d) => {
  output += d;
});
const exited = new Promise((r) => server.once('exit', (code, signal) => r(code ?? signal)));
let healthyAfter = null;
while (performance.now() - started < 30_000 && server.exitCode === null) {
  try {
    if ((await fetch(`${url}/healthz`)).ok) {
      healthyAfter = performance.now() - started;
      break;
    }
  } catch {
    /* starting */
  }
  await new Promise((r) => setTimeout(r, 10));
}
if (
  !check(
    healthyAfter !== null,
    'serve: /healthz answers',
    healthyAfter === null ? output.trim() : `after ${healthyAfter.toFixed(0)} ms`,
  )
) {
  server.kill('SIGKILL');
  process.exit(1);
}

const status = async (path, init) => (await fetch(`${url}${path}`, init)).status;
check((await status('/readyz')) === 200, 'GET /readyz 200');
check((await status('/console')) === 200, 'GET /console 200 (embedded console)');
check(
  (await status('/docs/assets/swagger-ui-bundle.js')) === 200,
  'GET /docs/assets/swagger-ui-bundle.js 200 (embedded Swagger UI)',
);
check((await status('/metrics')) === 404, 'GET /metrics is not public (404)');

const stops = (n) =>
  Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    latitude: 48.8 + ((i * 37) % 100) / 1000,
    longitude: 2.25 + ((i * 61) % 100) / 800,
  }));
const optimize = async (key, n) => {
  const res = await fetch(`${url}/api/v1/optimize`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key.trim()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ start: { latitude: 48.8566, longitude: 2.3522 }, stops: stops(n) }),
  });
  return { status: res.status, body: await res.json() };
};
const small = await optimize(testKey.stdout, 10);
check(
  small.status === 200 && small.body.order?.length === 10,
  'test key: optimize 10 stops → 200',
  `${small.status} ${small.body.error ?? ''}`,
);
const large = await optimize(liveKey.stdout, 40);
check(
  large.status === 200 && large.body.order?.length === 40 && large.body.stopsCharged === 40,
  'live key: optimize 40 stops (WASM search in a worker thread) → 200, 40 charged',
  `${large.status} ${large.body.error ?? ''} ${large.body.message ?? ''}`,
);
const warmUpBy = performance.now() + 20_000;
while (!/solver warmed up|solver warm-up failed/.test(output) && performance.now() < warmUpBy)
  await new Promise((r) => setTimeout(r, 50));
check(
  /"msg":"solver warmed up"/.test(output),
  'start-up solver warm-up: one fleet solve on the worker pool',
  output.match(/.*solver (warmed up|warm-up failed).*/)?.[0] ?? 'no warm-up line within 20 s',
);
const privateDirs = readdirSync(env.TMPDIR);
check(
  privateDirs.length === 1 && privateDirs[0].startsWith('route-optimizer-'),
  'assets unpacked into one private directory under TMPDIR',
  privateDirs.join(', '),
);

const dbCheck = run('admin', 'db', 'check');
check(dbCheck.status === 0, 'admin db check (service running) exits 0', dbCheck.stderr.trim());

server.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 100));
check((await status('/readyz').catch(() => 0)) === 503, 'after SIGTERM: /readyz 503 during the drain');
const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 40_000))]);
check(code === 0, 'SIGTERM → exit 0', `exit ${code}`);
check(
  readdirSync(env.TMPDIR).length === 0,
  'private asset directory removed at exit',
  readdirSync(env.TMPDIR).join(', '),
);
const after = run('admin', 'db', 'check');
check(after.status === 0, 'admin db check (after stop) exits 0', after.stderr.trim());

if (failures.length > 0) {
  console.log(`\nsmoke-binary: ${failures.length} check(s) failed; service output:\n${output}`);
  process.exit(1);
}
rmSync(home, { recursive: true, force: true });
console.log(`\nsmoke-binary: all checks passed; /healthz ${healthyAfter.toFixed(0)} ms after start`);
