import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
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
    const res = await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(3) } });
    assert.equal(res.status, 503);
    assert.equal(res.body.error, 'storage_unavailable');
    assert.equal(res.headers.get('retry-after'), '1');
    other.exec('ROLLBACK');
    other.close();
    assert.equal((await server.request('GET', '/api/v1/balance', { key })).body.stopsBalance, 20);
    const ok = await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(3) } });
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
        try { writeSync(fd, chunk, 0, size); } catch { size = Math.floor(size / 2); }
      }
    } finally {
      closeSync(fd);
    }
    const res = await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(3) } });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error, 'storage_unavailable');
    unlinkSync(ballast);
    const record = await server.services.store.findKeyByHash(hashApiKey(key));
    assert.equal(record!.balance, 20, 'nothing debited');
    const ok = await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(3) } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.stopsBalance, 17);
    assert.equal((await server.services.store.checkIntegrity(new Date())).ok, true);
  } finally {
    await server.close();
    execFileSync('umount', [mountPoint]);
  }
});
