import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { hashApiKey } from '../../src/billing/keys.js';
import type { SqliteStore } from '../../src/store/sqlite.js';
import { PARIS_START, coordinateStops, startTestServer, tempDir } from '../helpers/server.js';

test('database busy (another writer holds the lock): 503 storage_unavailable with Retry-After, nothing debited, healthy after', async () => {
  const server = await startTestServer({ env: { DATABASE_BUSY_TIMEOUT_MS: '200' } });
  try {
    const key = await server.createKey('live', 20);
    const other = new Database(join(server.dir, 'service.db'));
    other.exec('BEGIN IMMEDIATE');
    const res = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(res.status, 503);
    assert.equal(res.body.error, 'storage_unavailable');
    assert.equal(res.headers.get('retry-after'), '1');
    other.exec('ROLLBACK');
    other.close();
    assert.equal((await server.request('GET', '/api/v1/balance', { key })).body.stopsBalance, 20);
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.stopsBalance, 17);
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  } finally {
    await server.close();
  }
});

test('disk full (a real full filesystem): 503 storage_unavailable, nothing debited, and the service recovers when space returns', async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root to mount a small tmpfs (CI runs as root)');
    return;
  }
  const mountPoint = tempDir('ros-full-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
  const server = await startTestServer({ dir: mountPoint });
  try {
    const key = await server.createKey('live', 20);
    // checkpoint so the WAL is small, then fill the filesystem to the last byte
    (server.services.store as SqliteStore).db.pragma('wal_checkpoint(TRUNCATE)');
    const ballast = join(mountPoint, 'ballast');
    const chunk = Buffer.alloc(64 * 1024);
    const fd = openSync(ballast, 'w');
    try {
      for (let size = chunk.length; size >= 1;) {
        try {
          writeSync(fd, chunk, 0, size);
        } catch {
          size = Math.floor(size / 2);
        }
      }
    } finally {
      closeSync(fd);
    }
    const res = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error, 'storage_unavailable');
    const notReady = await server.request('GET', '/readyz');
    assert.equal(notReady.status, 503, 'not ready while no paid call can be recorded');
    assert.deepEqual(notReady.body.checks, { store: false, solver: true });
    assert.match(notReady.body.message, /SQLITE_FULL/);
    unlinkSync(ballast);
    await new Promise((r) => setTimeout(r, 1_100));
    assert.equal((await server.request('GET', '/readyz')).status, 200);
    const record = await server.services.store.findKeyByHash(hashApiKey(key));
    assert.equal(record!.balance, 20, 'nothing debited');
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.stopsBalance, 17);
    assert.equal((await server.services.store.checkIntegrity(new Date())).ok, true);
  } finally {
    await server.close();
    execFileSync('umount', [mountPoint]);
  }
});

test('another process holds the database lock: the event loop stays free (/healthz answers while calls wait), calls succeed once it is released', async () => {
  const server = await startTestServer({ env: { DATABASE_BUSY_TIMEOUT_MS: '10000' } });
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
  `,
      join(server.dir, 'service.db'),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  try {
    const key = await server.createKey('live', 20);
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    let settled = false;
    const call = server
      .request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(3) } })
      .finally(() => {
        settled = true;
      });
    await new Promise((r) => setTimeout(r, 300)); // the call is waiting for the lock by now
    for (let i = 0; i < 5; i++) assert.equal((await server.request('GET', '/healthz')).status, 200);
    assert.equal(settled, false, 'the call still waits for the lock, without holding the event loop');
    const notReady = await server.request('GET', '/readyz');
    assert.equal(notReady.status, 503);
    assert.equal(notReady.body.checks.store, false);
    assert.match(notReady.body.message, /SQLITE_BUSY/);
    holder.stdin!.write('release\n');
    const res = await call;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.stopsBalance, 17);
    await new Promise((r) => setTimeout(r, 1_100)); // past the readiness probe's reuse
    assert.equal((await server.request('GET', '/readyz')).status, 200);
  } finally {
    holder.kill();
    await server.close();
  }
});

test('/readyz tells the truth: a database that answers reads but takes no write is not ready', async () => {
  const server = await startTestServer();
  try {
    assert.deepEqual((await server.request('GET', '/readyz')).body, {
      status: 'ready',
      checks: { store: true, solver: true },
    });
    // a read-only database file: reads still work (SELECT 1 passes) but no paid call could be recorded
    const db = (server.services.store as SqliteStore).db;
    db.pragma('query_only = ON');
    await new Promise((r) => setTimeout(r, 1_100));
    const res = await server.request('GET', '/readyz');
    assert.equal(res.status, 503);
    assert.deepEqual(res.body.checks, { store: false, solver: true });
    db.pragma('query_only = OFF');
    await new Promise((r) => setTimeout(r, 1_100));
    assert.equal((await server.request('GET', '/readyz')).status, 200);
  } finally {
    await server.close();
  }
});
