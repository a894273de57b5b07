/** The store contract for the database: migrations, locks, the write probe, constraints, backup, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { readMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { isStorageUnavailable } from '../../src/store/types.js';
import { freePort } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';
import { describeContract, freshDb, ledgerSum, liveKey, now, pending, purchase, server } from './harness.js';

describeContract('database', (kind) => {
  test('migrations: applied on an empty database, a second (and concurrent) open applies nothing, data survives', async () => {
    const db = await freshDb(kind);
    const first = await db.open();
    const key = await liveKey(first, 7);
    await first.close();
    // several instances starting together
    const again = await Promise.all([db.open(), db.open(), db.open()]);
    const rows = await db.query('SELECT version FROM schema_migrations ORDER BY version');
    const versions = rows.map((r) => Number(r.version));
    const files = readMigrations(new URL(`../../src/store/migrations/${kind}/`, import.meta.url).pathname).map(
      (m) => m.version,
    );
    assert.deepEqual(versions, files);
    assert.equal((await again[0].listKeys()).find((k) => k.id === key.id)?.balance, 7, 'data survives the reopen');
  });

  test("a write waiting on another connection's lock gives the event loop back, fails as storage unavailable past the busy timeout, and succeeds when released in time", async () => {
    const db = await freshDb(kind);
    const store = await db.open({ busyTimeoutMs: 400 });
    const key = await liveKey(store, 10);
    const release = await db.lockWrites();
    const events: string[] = [];
    setTimeout(() => events.push('timer'), 20);
    const failure = await store.debit(key.id, 1, 'req-locked', now, pending()).then(
      () => null,
      (err: unknown) => err,
    );
    events.push('write settled');
    assert.ok(failure && isStorageUnavailable(failure), String(failure));
    assert.deepEqual(events, ['timer', 'write settled'], 'timers run while the write waits for the lock');
    assert.deepEqual(
      (await store.listKeys()).map((k) => k.balance),
      [10],
      'reads still answer',
    );
    const patient = await db.open({ busyTimeoutMs: 5_000 });
    const waiting = patient.debit(key.id, 2, 'req-waits', now, pending());
    setTimeout(() => {
      void release();
    }, 150);
    const outcome = await waiting;
    assert.ok(outcome.ok);
    assert.equal(outcome.balance, 8);
    assert.equal(await ledgerSum(store, key.id), 8, 'the failed attempt changed nothing');
  });

  test('the readiness write probe succeeds on a writable database and fails as storage unavailable on a read-only one', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    await store.probeWrite(now);
    await store.probeWrite(now);
    if (kind === 'sqlite') {
      (store as SqliteStore).db.pragma('query_only = ON');
      const err = await store.probeWrite(now).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err && isStorageUnavailable(err), String(err));
    } else {
      // the database turns read-only (a standby after a failover, an operator): new sessions cannot write
      const name = new URL((db.location as { url: string }).url).pathname.slice(1);
      await db.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
      await db.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'route-optimization-service'",
        [name],
      );
      let err: unknown = null;
      for (let i = 0; i < 3 && (err as { code?: string } | null)?.code !== '25006'; i++)
        err = await store.probeWrite(now).then(
          () => null,
          (e: unknown) => e,
        );
      assert.equal((err as { code?: string } | null)?.code, '25006', String(err));
      assert.ok(isStorageUnavailable(err));
      const admin = new pg.Client({ connectionString: server.adminUrl });
      await admin.connect();
      try {
        await admin.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = off`);
      } finally {
        await admin.end();
      }
    }
  });

  test('the balance cannot go negative even by a direct update (CHECK constraint)', async () => {
    const db = await freshDb(kind);
    const key = await liveKey(await db.open(), 1);
    await assert.rejects(
      db.query('UPDATE api_keys SET balance = -1 WHERE id = $1'.replace('$1', kind === 'sqlite' ? '?' : '$1'), [
        key.id,
      ]),
      /check constraint/i,
    );
  });

  test(
    kind === 'sqlite' ? 'backup writes a consistent copy' : 'backup refuses and points the admin to pg_dump',
    async () => {
      const store = await (await freshDb(kind)).open();
      await liveKey(store, 3);
      const destination = join(tempDir(), 'backup.db');
      if (kind === 'sqlite') {
        await store.backup(destination);
        assert.ok(existsSync(destination));
      } else {
        await assert.rejects(store.backup(destination), /pg_dump/);
        assert.equal(existsSync(destination), false);
      }
    },
  );
});

describe('PostgreSQL store: retries', () => {
  test('a transaction chosen as a deadlock victim (40P01) is retried inside the store and succeeds', async () => {
    const url = await server.createDatabase('deadlock');
    const store = await PostgresStore.open(url);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const key = await liveKey(store, 5, 'fleet@example.com');
      // the other session detects deadlocks late, so the store's transaction is the victim
      await other.query("SET deadlock_timeout = '20s'");
      await other.query('BEGIN');
      await other.query('UPDATE api_keys SET balance = balance WHERE id = $1', [key.id]);
      // the purchase takes the e-mail's advisory lock, then waits for the key row the other session holds
      const purchased = store.recordPurchase(purchase({ email: 'fleet@example.com' }));
      await new Promise((r) => setTimeout(r, 300));
      // the other session now waits for the e-mail's lock: a cycle; after 1 s the store's transaction is cancelled
      const otherLock = other.query("SELECT pg_advisory_xact_lock(hashtext('purchase:' || lower($1)))", [
        'fleet@example.com',
      ]);
      await otherLock;
      await other.query('COMMIT');
      const outcome = await purchased;
      assert.equal(outcome.kind, 'credited');
      assert.equal(outcome.kind === 'credited' && outcome.balance, 2005);
      assert.equal((await store.listPayments()).length, 1);
      assert.equal((await store.checkIntegrity(new Date())).ok, true);
    } finally {
      await other.end();
      await store.close();
    }
  });
});

describe('openStore and PostgreSQL unavailability', () => {
  test('openStore picks PostgreSQL when DATABASE_URL is set, else SQLite', async () => {
    const url = await server.createDatabase('open');
    const pgStore = await openStore({
      databaseUrl: url,
      databasePath: '/nonexistent/never.db',
      databaseBusyTimeoutMs: 1000,
    });
    const sqliteStore = await openStore({
      databaseUrl: null,
      databasePath: join(tempDir(), 's.db'),
      databaseBusyTimeoutMs: 1000,
    });
    try {
      assert.equal(pgStore.kind, 'postgres');
      assert.equal(sqliteStore.kind, 'sqlite');
    } finally {
      await pgStore.close();
      await sqliteStore.close();
    }
  });

  test('a server that cannot be reached, or that is shutting down, is "storage unavailable" (503), not a bug', async () => {
    const port = await freePort();
    const err = await PostgresStore.open(`postgres://postgres@127.0.0.1:${port}/nowhere`, {
      connectionTimeoutMs: 2000,
    }).then(
      () => null,
      (e) => e,
    );
    assert.ok(err, 'open must fail');
    assert.equal(isStorageUnavailable(err), true, String(err));
    for (const code of ['08006', '08001', '53100', '53300', '57P01', '57P03', '55P03', '25006'])
      assert.equal(isStorageUnavailable({ code }), true, code);
    for (const code of ['23505', '40001', '42P01', '22P02']) assert.equal(isStorageUnavailable({ code }), false, code);
    // the server terminates our connection (an administrator, a failover): 57P01, then reconnects
    const url = await server.createDatabase('terminate');
    const store = await PostgresStore.open(url, { poolSize: 1 });
    try {
      await store.ping();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'route-optimization-service'",
      );
      await admin.end();
      await new Promise((r) => setTimeout(r, 100));
      const failure = await store.ping().then(
        () => null,
        (e) => e,
      );
      if (failure) assert.equal(isStorageUnavailable(failure), true, String(failure));
      await store.ping(); // the pool replaces the broken connection
    } finally {
      await store.close();
    }
  });
});
