import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite.js';
import { SqliteDb } from '../../src/store/sqlite-db.js';
import { one, run, type Work } from '../../src/store/sql.js';
import { tempDir } from '../helpers/server.js';

const now = new Date('2026-06-01T08:00:00Z');

async function liveKey(store: SqliteStore, stops: number) {
  return store.createKey({
    kind: 'live',
    keyHash: `h${Math.random()}`,
    last4: 'abcd',
    email: null,
    initialStops: stops,
    reason: 'admin_credit',
    now,
  });
}

async function ledgerSum(store: SqliteStore, keyId: number) {
  return (await store.ledger(keyId)).reduce((sum, e) => sum + e.delta, 0);
}

test('migrations apply on an empty database and are not applied twice', async () => {
  const path = join(tempDir(), 'm.db');
  const first = new SqliteStore(path);
  const key = await liveKey(first, 7);
  await first.close();
  const second = new SqliteStore(path);
  const db = new Database(path, { readonly: true });
  const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
  assert.ok(versions.length >= 2);
  assert.deepEqual(versions, [...new Set(versions)]);
  const hash = db.prepare('SELECT key_hash FROM api_keys').pluck().get() as string;
  assert.equal((await second.findKeyByHash(hash))?.balance, 7, 'data survives the reopen');
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  db.close();
  assert.equal(key.balance, 7);
  await second.close();
});

test('a debit is all or nothing and is written to the ledger', async () => {
  const store = new SqliteStore(join(tempDir(), 'd.db'));
  const key = await liveKey(store, 10);
  const ok = await store.debit(key.id, 4, 'req-1', now, { untilMs: now.getTime() + 60_000, owner: 't' });
  assert.deepEqual(ok.ok && { balance: ok.balance }, { balance: 6 });
  const refused = await store.debit(key.id, 7, 'req-2', now, { untilMs: now.getTime() + 60_000, owner: 't' });
  assert.deepEqual(refused, { ok: false, balance: 6 });
  assert.equal(await ledgerSum(store, key.id), 6);
  assert.deepEqual(
    (await store.ledger(key.id)).map((e) => e.reason),
    ['admin_credit', 'debit'],
  );
  await store.close();
});

test('a refund happens exactly once per debit', async () => {
  const store = new SqliteStore(join(tempDir(), 'r.db'));
  const key = await liveKey(store, 10);
  const debit = await store.debit(key.id, 10, 'req-1', now, { untilMs: now.getTime() + 60_000, owner: 't' });
  assert.ok(debit.ok);
  assert.deepEqual(await store.refund(debit.debitId, now), { refunded: true, balance: 10 });
  assert.deepEqual(await store.refund(debit.debitId, now), { refunded: false, balance: 10 });
  assert.equal(await ledgerSum(store, key.id), 10);
  assert.deepEqual(
    (await store.ledger(key.id)).map((e) => e.reason),
    ['admin_credit', 'debit', 'refund'],
  );
  await store.close();
});

test('test keys and revoked keys cannot be debited', async () => {
  const store = new SqliteStore(join(tempDir(), 't.db'));
  const test = await store.createKey({
    kind: 'test',
    keyHash: 'ht',
    last4: 'wxyz',
    email: null,
    initialStops: 0,
    reason: 'admin_credit',
    now,
  });
  assert.equal((await store.debit(test.id, 1, 'r', now, { untilMs: now.getTime() + 60_000, owner: 't' })).ok, false);
  const live = await store.createKey({
    kind: 'live',
    keyHash: 'hl',
    last4: 'wxyz',
    email: null,
    initialStops: 5,
    reason: 'admin_credit',
    now,
  });
  assert.equal(await store.revokeKey('hl', now), true);
  assert.equal(await store.revokeKey('hl', now), false);
  assert.equal((await store.debit(live.id, 1, 'r', now, { untilMs: now.getTime() + 60_000, owner: 't' })).ok, false);
  await store.close();
});

test('the balance cannot go negative even by a direct update (CHECK constraint)', async () => {
  const store = new SqliteStore(join(tempDir(), 'c.db'));
  const key = await liveKey(store, 1);
  assert.throws(
    () => store.db.prepare('UPDATE api_keys SET balance = -1 WHERE id = ?').run(key.id),
    /CHECK constraint/,
  );
  await store.close();
});

test('the dialect seam: $n parameters bound in any order and repeated on SQLite; a failed statement is handed to the work and rolls its transaction back', async () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT NOT NULL, flag INTEGER NOT NULL)');
  const sqlite = new SqliteDb(db, 1_000);
  assert.equal(await sqlite.run('INSERT INTO t (b, a, flag) VALUES ($2, $1, $3)', [7, 'seven', true]), 1);
  assert.deepEqual(await sqlite.rows('SELECT a, b, flag FROM t WHERE a = $1 OR a = $1 + 0 AND b = $2', [7, 'seven']), [
    { a: 7, b: 'seven', flag: 1 },
  ]);

  const seen: string[] = [];
  const outcome = await sqlite.write(function* (): Work<string> {
    yield* run('UPDATE t SET a = $1', [8]);
    try {
      yield* run('INSERT INTO t (a, b, flag) VALUES (NULL, $1, 0)', ['no a']);
    } catch (err) {
      seen.push((err as { code?: string }).code ?? 'no code');
    }
    return (yield* one<{ a: number }>('SELECT a FROM t'))!.a === 8 ? 'caught inside' : 'lost';
  });
  assert.equal(outcome, 'caught inside');
  assert.deepEqual(seen, ['SQLITE_CONSTRAINT_NOTNULL']);

  await assert.rejects(
    sqlite.write(function* (): Work<void> {
      yield* run('UPDATE t SET a = $1', [9]);
      yield* run('INSERT INTO t (a, b, flag) VALUES (NULL, $1, 0)', ['no a']);
    }),
    { code: 'SQLITE_CONSTRAINT_NOTNULL' },
  );
  assert.deepEqual(await sqlite.rows('SELECT a FROM t'), [{ a: 8 }], 'the failed transaction changed nothing');
  db.close();
});
