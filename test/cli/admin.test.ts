import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hashApiKey } from '../../src/billing/keys.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const root = new URL('../..', import.meta.url).pathname;
const dir = tempDir();
const env = { ...process.env, DATABASE_PATH: join(dir, 'service.db'), LOG_LEVEL: 'silent' };

/** The documented contract: `npm run --silent admin -- ...`. */
function admin(...args: string[]) {
  const r = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let server: TestServer;
before(async () => {
  server = await startTestServer({ dir });
});
after(async () => {
  await server.close();
});

test('keys create prints the key alone on stdout, and the API accepts it', async () => {
  const live = admin('keys', 'create', '--kind', 'live', '--stops', '250', '--email', 'ops@example.com');
  assert.equal(live.code, 0, live.stderr);
  assert.match(live.stdout, /^svc_live_[A-Za-z0-9_-]{43}\n$/);
  const key = live.stdout.trim();
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 250 });

  const test = admin('keys', 'create', '--kind', 'test');
  assert.match(test.stdout, /^svc_test_[A-Za-z0-9_-]{43}\n$/);
  assert.equal((await server.request('GET', '/api/v1/balance', { key: test.stdout.trim() })).body.sandbox, true);

  const credit = admin('keys', 'credit', key, '50');
  assert.equal(credit.code, 0, credit.stderr);
  assert.equal(credit.stdout.trim(), '300');
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 300 });
  const ledger = await server.services.store.ledger(
    (await server.services.store.listKeys()).find((k) => k.kind === 'live')!.id,
  );
  assert.deepEqual(
    ledger.map((e) => [e.reason, e.delta]),
    [
      ['admin_credit', 250],
      ['admin_credit', 50],
    ],
  );

  const list = admin('keys', 'list');
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^KIND\s+KEY\s+EMAIL\s+BALANCE\s+CREATED\s+REVOKED/);
  assert.match(list.stdout, new RegExp(`live\\s+…${key.slice(-4)}\\s+ops@example\\.com\\s+300`));
  assert.ok(!list.stdout.includes(key), 'the full key is never listed');

  const revoke = admin('keys', 'revoke', key);
  assert.equal(revoke.code, 0, revoke.stderr);
  assert.equal((await server.request('GET', '/api/v1/balance', { key })).status, 401);
  assert.equal(admin('keys', 'revoke', key).code, 1);
});

test('bad arguments: one line on stderr naming the fix, nothing on stdout, exit 2; no arguments: the usage', () => {
  for (const args of [
    ['keys', 'create'],
    ['keys', 'create', '--kind', 'gold'],
    ['keys', 'create', '--kind', 'live', '--stops', '-3'],
    ['keys', 'create', '--kind', 'test', '--stops', '5'],
    ['keys', 'credit', 'svc_live_nope', 'x'],
    ['keys', 'list', 'extra'],
    ['keys', 'create', '--kind', 'live', '--bogus'],
    ['keys', 'create', '--kind', 'live'],
    ['keys', 'frob'],
  ]) {
    const r = admin(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.match(r.stderr, /^admin[^:]*: .+--help\)?\n$/);
  }
  const none = admin();
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^Usage: npm run --silent admin -- <command>/);
  const help = admin('keys', 'create', '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: npm run --silent admin -- keys create --kind test\|live/);
});

test('db check passes on a consistent database and fails (exit 1) when a balance disagrees with its ledger; db backup copies it', async () => {
  const check = admin('db', 'check');
  assert.equal(check.code, 0, check.stderr);
  assert.equal(JSON.parse(check.stdout).ok, true);
  assert.match(check.stderr, /^OK: \d+ keys/m);

  const backupPath = join(dir, 'backups', 'copy.db');
  const backup = admin('db', 'backup', backupPath);
  assert.equal(backup.code, 0, backup.stderr);
  const Database = (await import('better-sqlite3')).default;
  const copy = new Database(backupPath, { readonly: true });
  assert.equal(
    copy.prepare('SELECT COUNT(*) FROM api_keys').pluck().get(),
    (await server.services.store.listKeys()).length,
  );
  copy.close();

  const key = (await server.services.store.listKeys())[0];
  (server.services.store as unknown as { db: import('better-sqlite3').Database }).db
    .prepare('UPDATE api_keys SET balance = balance + 5 WHERE id = ?')
    .run(key.id);
  const broken = admin('db', 'check');
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, new RegExp(`key ${key.id}: balance \\d+ but its ledger sums to \\d+`));
  (server.services.store as unknown as { db: import('better-sqlite3').Database }).db
    .prepare('UPDATE api_keys SET balance = balance - 5 WHERE id = ?')
    .run(key.id);
  assert.equal(admin('db', 'recover').code, 0);
});

test('db check lists the instance leases and fails while a gone instance holds charges; db recover settles it once', async () => {
  const store = server.services.store;
  const key = await server.services.billing.issueKey('live', { stops: 40 });
  const past = Date.now() - 60_000;
  await store.acquireLease(
    { instanceId: 'deadbeef0001', host: 'web-9', pid: 999999, port: 3009 },
    new Date(past),
    past + 10_000,
  );
  const debit = await store.debit(key.record.id, 6, 'crashed-call', new Date(), {
    untilMs: Date.now() + 35_000,
    owner: 'deadbeef0001',
  });
  assert.ok(debit.ok);

  const check = admin('db', 'check');
  assert.equal(check.code, 1);
  const report = JSON.parse(check.stdout) as {
    leases: Array<{ instanceId: string; state: string; pendingDebits: number; pendingStops: number }>;
  };
  // (the test server's own lease is not asserted: spawnSync blocks its heartbeat while the CLI runs, and on a
  // loaded machine that can outlast its expiry, so it may have been settled and renewed under a new id meanwhile)
  assert.deepEqual(
    report.leases.filter((l) => l.instanceId === 'deadbeef0001').map((l) => [l.state, l.pendingDebits, l.pendingStops]),
    [['expired', 1, 6]],
  );
  assert.match(check.stderr, /^INSTANCE\s+STATE\s+HOST\s+PID\s+PORT/m);
  assert.match(
    check.stderr,
    /instance deadbeef0001 \(web-9 pid 999999 port 3009\) is gone: no heartbeat since .* still holds 1 debit\(s\) of 6 stops/,
  );

  const recover = admin('db', 'recover');
  assert.equal(recover.code, 0, recover.stderr);
  const recovered = JSON.parse(recover.stdout) as { refunded: number; releasedSandbox: number; settledLeases: number };
  assert.deepEqual([recovered.refunded, recovered.releasedSandbox], [1, 0]);
  assert.ok(recovered.settledLeases >= 1);
  assert.match(recover.stderr, /settled the lease of instance deadbeef0001 \(web-9 pid 999999 port 3009/);
  assert.match(recover.stderr, /refunded 6 stops to key \d+ \(request crashed-call, instance deadbeef0001\)/);
  assert.deepEqual(JSON.parse(admin('db', 'recover').stdout).refunded, 0, 'once');

  const clean = admin('db', 'check');
  assert.equal(clean.code, 0, clean.stderr);
  assert.match(
    clean.stderr,
    /OK: \d+ keys, every balance equals its ledger, nothing stale pending; \d+ live instance\(s\)\./,
  );
  assert.equal((await store.findKeyByHash(hashApiKey(key.key)))!.balance, 40);
});

test("the executable's admin speaks with its own name: route-optimizer admin --help, and errors point there", () => {
  // dist/route-optimizer.js is the executable's entry run by plain node (the same code as dist/route-optimizer)
  const exe = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['scripts/dist.mjs', 'route-optimizer', ...args], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const help = exe('admin', '--help');
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: route-optimizer admin <command>/);
  assert.ok(!help.stdout.includes('npm run'), help.stdout);
  const bad = exe('admin', 'keys', 'create', '--kind', 'gold');
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^admin keys create: --kind must be test or live \(got "gold"\) \(see route-optimizer admin keys create --help\)\n$/,
  );
  assert.match(exe('admin', 'frob').stderr, /\(see route-optimizer admin --help\)\n$/);
  assert.match(
    exe('help').stdout,
    /^Usage: route-optimizer \[command\][\s\S]*\(route-optimizer admin --help lists them\)/,
  );
});
