/**
 * The Store contract, run against both implementations: the embedded SQLite
 * store and the PostgreSQL store (a throwaway cluster, test/helpers/postgres.ts).
 * Each test gets an empty database; "another instance" is another store opened
 * on the same database (another SQLite connection, another pg Pool), so the
 * concurrency tests race real connections.
 */
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Billing } from '../../src/billing/billing.js';
import { InstanceLease } from '../../src/billing/lease.js';
import { generateApiKey, hashApiKey, lastFour } from '../../src/billing/keys.js';
import { ConsoleTestKeys } from '../../src/console/test-keys.js';
import { ApiError } from '../../src/errors.js';
import { Outbox } from '../../src/mail/outbox.js';
import type { MailMessage, MailSender } from '../../src/mail/sender.js';
import { readMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { isStorageUnavailable, type NewOutboxMessage, type PurchaseRequest, type Store } from '../../src/store/types.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { freePort } from '../helpers/process.js';
import { manualClock, tempDir } from '../helpers/server.js';
import { tsWorker } from '../helpers/ts-worker.js';

type Location = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** One empty database of one backend. */
interface Db {
  location: Location;
  /** Opens a store on it (a new connection or pool: "another instance"). Closed after the test. */
  open(options?: { busyTimeoutMs?: number }): Promise<Store>;
  /** Another connection takes the write lock (SQLite: BEGIN EXCLUSIVE; PostgreSQL: LOCK TABLE api_keys IN EXCLUSIVE MODE); call to release. */
  lockWrites(): Promise<() => Promise<void>>;
  /** Raw SQL outside the store (tampering, inspection). */
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

let server: PostgresServer;
before(async () => { server = await startPostgres(); });
after(async () => { await server?.stop(); });

const opened: Store[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close().catch(() => {}); });

async function freshDb(kind: 'sqlite' | 'postgres'): Promise<Db> {
  if (kind === 'sqlite') {
    const path = join(tempDir('ros-contract-'), 'service.db');
    return {
      location: { kind, path },
      async open(options = {}) { const s = new SqliteStore(path, options); opened.push(s); return s; },
      async lockWrites() {
        const other = new Database(path);
        other.exec('BEGIN EXCLUSIVE');
        return async () => { other.exec('COMMIT'); other.close(); };
      },
      async query(sql, params = []) {
        const db = new Database(path);
        try {
          const stmt = db.prepare(sql);
          return stmt.reader ? stmt.all(...params) as Array<Record<string, unknown>> : (stmt.run(...params), []);
        } finally { db.close(); }
      },
    };
  }
  const url = await server.createDatabase('contract');
  return {
    location: { kind, url },
    async open(options = {}) { const s = await PostgresStore.open(url, { lockTimeoutMs: options.busyTimeoutMs }); opened.push(s); return s; },
    async lockWrites() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('BEGIN');
      await client.query('LOCK TABLE api_keys IN EXCLUSIVE MODE');
      return async () => { await client.query('COMMIT'); await client.end(); };
    },
    async query(sql, params = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try { return (await client.query(sql, params)).rows; } finally { await client.end(); }
    },
  };
}

const now = new Date('2026-06-01T08:00:00Z');
const pending = (ms = 60_000) => ({ untilMs: Date.now() + ms, owner: 't' });
const limits = { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 };

async function liveKey(store: Store, stops: number, email: string | null = null) {
  return store.createKey({ kind: 'live', keyHash: `h${Math.random()}`, last4: 'abcd', email, initialStops: stops, reason: 'admin_credit', now });
}

async function ledgerSum(store: Store, keyId: number) {
  return (await store.ledger(keyId)).reduce((sum, e) => sum + e.delta, 0);
}

function rejected(err: unknown, status: number, code: string): ApiError {
  assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
  assert.equal(err.status, status);
  assert.equal(err.code, code);
  return err;
}

const material = () => {
  const key = generateApiKey('live');
  return { key, newKey: { keyHash: hashApiKey(key), last4: lastFour(key) } };
};

function purchase(overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
  const { key, newKey } = material();
  return {
    stripeEventId: `evt_${Math.random().toString(36).slice(2)}`,
    stripeSessionId: `cs_test_${Math.random().toString(36).slice(2)}`,
    email: 'buyer@example.com', packId: 'pack_2k', stops: 2000, amountCents: 2900, currency: 'eur', newKey,
    composeMail: ({ createdKey, key: record, balance }): NewOutboxMessage => createdKey
      ? { kind: 'new_key', to: 'buyer@example.com', subject: 'key', body: `key ${key} balance ${balance}` }
      : { kind: 'top_up', to: 'buyer@example.com', subject: 'top-up', body: `key ending ${record.last4} balance ${balance}` },
    now: new Date('2026-03-01T10:00:00Z'),
    ...overrides,
  };
}

function recordingSender() {
  const sent: MailMessage[] = [];
  const sender: MailSender & { sent: MailMessage[] } = {
    mode: 'smtp', sent,
    async send(message) { await new Promise((r) => setTimeout(r, 5)); sent.push(message); return { messageId: `<${sent.length}@test>` }; },
    close() {},
  };
  return sender;
}
const silent = { info() {}, warn() {} };

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`Store contract: ${kind}`, () => {
    test('migrations: applied on an empty database, a second (and concurrent) open applies nothing, data survives', async () => {
      const db = await freshDb(kind);
      const first = await db.open();
      const key = await liveKey(first, 7);
      await first.close();
      // several instances starting together
      const again = await Promise.all([db.open(), db.open(), db.open()]);
      const rows = await db.query('SELECT version FROM schema_migrations ORDER BY version');
      const versions = rows.map((r) => Number(r.version));
      const files = readMigrations(new URL(`../../src/store/migrations/${kind}/`, import.meta.url).pathname).map((m) => m.version);
      assert.deepEqual(versions, files);
      assert.equal((await again[0].listKeys()).find((k) => k.id === key.id)?.balance, 7, 'data survives the reopen');
    });

    test('keys: create, find by hash and last 4, list, revoke once', async () => {
      const store = await (await freshDb(kind)).open();
      const created = await store.createKey({ kind: 'live', keyHash: 'hash-1', last4: 'wxyz', email: 'a@example.com', initialStops: 3, reason: 'purchase', now });
      assert.deepEqual(created, { id: created.id, kind: 'live', last4: 'wxyz', email: 'a@example.com', balance: 3, createdAt: now.toISOString(), revokedAt: null });
      assert.deepEqual(await store.findKeyByHash('hash-1'), created);
      assert.equal(await store.findKeyByHash('nope'), null);
      assert.deepEqual((await store.findKeyByLast4('wxyz')).map((k) => k.id), [created.id]);
      assert.deepEqual((await store.listKeys()).map((k) => k.id), [created.id]);
      assert.equal(await store.revokeKey('hash-1', now), true);
      assert.equal(await store.revokeKey('hash-1', now), false);
      assert.equal((await store.findKeyByHash('hash-1'))?.revokedAt, now.toISOString());
      assert.deepEqual((await store.ledger(created.id)).map((e) => [e.delta, e.reason]), [[3, 'purchase']]);
      const test = await store.createKey({ kind: 'test', keyHash: 'hash-t', last4: 'tttt', email: null, initialStops: 0, reason: 'admin_credit', now });
      await assert.rejects(store.credit(test.id, 5, 'admin_credit', null, now), /only live keys/);
      await assert.rejects(store.credit(created.id, 0, 'admin_credit', null, now), RangeError);
    });

    test('a debit is all or nothing and is written to the ledger; test and revoked keys cannot be debited', async () => {
      const store = await (await freshDb(kind)).open();
      const key = await liveKey(store, 10);
      const ok = await store.debit(key.id, 4, 'req-1', now, pending());
      assert.deepEqual(ok.ok && { balance: ok.balance }, { balance: 6 });
      assert.deepEqual(await store.debit(key.id, 7, 'req-2', now, pending()), { ok: false, balance: 6 });
      assert.equal(await ledgerSum(store, key.id), 6);
      assert.deepEqual((await store.ledger(key.id)).map((e) => e.reason), ['admin_credit', 'debit']);
      const test = await store.createKey({ kind: 'test', keyHash: 'ht', last4: 'wxyz', email: null, initialStops: 0, reason: 'admin_credit', now });
      assert.equal((await store.debit(test.id, 1, 'r', now, pending())).ok, false);
      const live = await store.createKey({ kind: 'live', keyHash: 'hl', last4: 'wxyz', email: null, initialStops: 5, reason: 'admin_credit', now });
      await store.revokeKey('hl', now);
      assert.equal((await store.debit(live.id, 1, 'r', now, pending())).ok, false);
    });

    test('a write waiting on another connection\'s lock gives the event loop back, fails as storage unavailable past the busy timeout, and succeeds when released in time', async () => {
      const db = await freshDb(kind);
      const store = await db.open({ busyTimeoutMs: 400 });
      const key = await liveKey(store, 10);
      const release = await db.lockWrites();
      const events: string[] = [];
      setTimeout(() => events.push('timer'), 20);
      const failure = await store.debit(key.id, 1, 'req-locked', now, pending()).then(() => null, (err: unknown) => err);
      events.push('write settled');
      assert.ok(failure && isStorageUnavailable(failure), String(failure));
      assert.deepEqual(events, ['timer', 'write settled'], 'timers run while the write waits for the lock');
      assert.deepEqual((await store.listKeys()).map((k) => k.balance), [10], 'reads still answer');
      const patient = await db.open({ busyTimeoutMs: 5_000 });
      const waiting = patient.debit(key.id, 2, 'req-waits', now, pending());
      setTimeout(() => { void release(); }, 150);
      const outcome = await waiting;
      assert.ok(outcome.ok);
      assert.equal(outcome.balance, 8);
      assert.equal(await ledgerSum(store, key.id), 8, 'the failed attempt changed nothing');
    });

    test("the caller's request id is kept beside the service's own in the ledger, on debits and on their refunds", async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      const key = await liveKey(store, 10);
      const first = await store.debit(key.id, 2, 'server-1', now, pending(), 'client-1');
      const second = await store.debit(key.id, 3, 'server-2', now, { untilMs: 0, owner: 'gone' }, 'client-2');
      await store.debit(key.id, 1, 'server-3', now, pending());
      assert.ok(first.ok && second.ok);
      await store.refund(first.debitId, now);
      await store.recoverCharges({ now, by: 'sweeper' });
      const rows = (await store.ledger(key.id)).map((e) => [e.reason, e.delta, e.requestId, e.clientRequestId]);
      assert.deepEqual(rows, [
        ['admin_credit', 10, null, null], ['debit', -2, 'server-1', 'client-1'], ['debit', -3, 'server-2', 'client-2'], ['debit', -1, 'server-3', null],
        ['refund', 2, 'server-1', 'client-1'], ['refund', 3, 'server-2', 'client-2'],
      ]);
    });

    test('the readiness write probe succeeds on a writable database and fails as storage unavailable on a read-only one', async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      await store.probeWrite(now);
      await store.probeWrite(now);
      if (kind === 'sqlite') {
        (store as SqliteStore).db.pragma('query_only = ON');
        const err = await store.probeWrite(now).then(() => null, (e: unknown) => e);
        assert.ok(err && isStorageUnavailable(err), String(err));
      } else {
        // the database turns read-only (a standby after a failover, an operator): new sessions cannot write
        const name = new URL((db.location as { url: string }).url).pathname.slice(1);
        await db.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
        await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'route-optimization-service'", [name]);
        let err: unknown = null;
        for (let i = 0; i < 3 && (err as { code?: string } | null)?.code !== '25006'; i++) err = await store.probeWrite(now).then(() => null, (e: unknown) => e);
        assert.equal((err as { code?: string } | null)?.code, '25006', String(err));
        assert.ok(isStorageUnavailable(err));
        const admin = new pg.Client({ connectionString: server.adminUrl });
        await admin.connect();
        try { await admin.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = off`); } finally { await admin.end(); }
      }
    });

    test('the balance cannot go negative even by a direct update (CHECK constraint)', async () => {
      const db = await freshDb(kind);
      const key = await liveKey(await db.open(), 1);
      await assert.rejects(db.query('UPDATE api_keys SET balance = -1 WHERE id = $1'.replace('$1', kind === 'sqlite' ? '?' : '$1'), [key.id]), /check constraint/i);
    });

    test('a refund happens exactly once per debit, even when several instances refund at once', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open(), await db.open()];
      const key = await liveKey(stores[0], 10);
      const debit = await stores[0].debit(key.id, 10, 'req-1', now, pending());
      assert.ok(debit.ok);
      const outcomes = await Promise.all([...stores, ...stores].map((s) => s.refund(debit.debitId, now)));
      assert.equal(outcomes.filter((o) => o.refunded).length, 1);
      assert.ok(outcomes.every((o) => o.balance === 10 || !o.refunded));
      assert.deepEqual(await stores[0].refund(debit.debitId, now), { refunded: false, balance: 10 });
      assert.equal(await ledgerSum(stores[0], key.id), 10);
      assert.deepEqual((await stores[0].ledger(key.id)).map((e) => e.reason), ['admin_credit', 'debit', 'refund']);
      await assert.rejects(stores[0].refund(key.id, now), /not a debit/);
    });

    test('50 stops, 10 parallel 10-stop debits from 10 connections: exactly 5 succeed, balance 0, ledger sums to it', async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      const key = await liveKey(store, 50);
      const barrier = new SharedArrayBuffer(4);
      const workers = 10;
      const results = await Promise.all(Array.from({ length: workers }, (_, index) => new Promise<boolean>((resolve, reject) => {
        const worker = tsWorker(new URL('./debit-worker.ts', import.meta.url), {
          workerData: { location: db.location, keyId: key.id, stops: 10, barrier, workers, index },
        });
        worker.once('message', resolve);
        worker.once('error', reject);
      })));
      assert.equal(results.filter(Boolean).length, 5);
      assert.equal((await store.listKeys())[0].balance, 0);
      const ledger = await store.ledger(key.id);
      assert.equal(ledger.reduce((s, e) => s + e.delta, 0), 0);
      assert.equal(ledger.filter((e) => e.reason === 'debit').length, 5);
    });

    test('sandbox: the 21st call in a rolling minute is refused, also when 25 calls race from 3 instances', async () => {
      const db = await freshDb(kind);
      const clock = manualClock('2026-06-01T10:00:00Z');
      const stores = [await db.open(), await db.open(), await db.open()];
      const billings = stores.map((s) => new Billing(s, { limits, clock }));
      const { record } = await billings[0].issueKey('test');
      const results = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => billings[i % 3].reserveSandbox(record, 2, `r${i}`)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 20);
      for (const r of results) if (r.status === 'rejected') rejected(r.reason, 429, 'sandbox_rate_limited');
      assert.deepEqual(await billings[1].sandboxQuotas(record), { sandboxStopsRemainingToday: 160, sandboxCallsRemainingThisMinute: 0 });
      clock.advance(20_000);
      const err = rejected(await billings[0].reserveSandbox(record, 2, 'late').then(() => null, (e) => e), 429, 'sandbox_rate_limited');
      assert.equal(err.extra.resetAt, '2026-06-01T10:01:00.000Z');
      assert.equal(err.headers['Retry-After'], '40');
      clock.set('2026-06-01T10:01:00Z');
      await billings[2].reserveSandbox(record, 2, 'next-minute');
    });

    if (kind === 'postgres') {
      test('sandbox: a call stamped a moment later by another instance, but reserved first, still counts', async () => {
        const db = await freshDb(kind);
        const [a, b] = [await db.open(), await db.open()];
        const key = await a.createKey({ kind: 'test', keyHash: 'sk', last4: 'sand', email: null, initialStops: 0, reason: 'admin_credit', now });
        const t0 = Date.parse('2026-06-01T10:00:00Z');
        const reserve = (s: Store, nowMs: number, i: number) => s.reserveSandbox({
          keyId: key.id, nowMs, windowStartMs: nowMs - 59_999, day: '2026-06-01', requestId: `r${i}`, stops: 1,
          callsPerMinute: 20, stopsPerDay: 200, pending: { untilMs: nowMs + 60_000, owner: 'x' },
        });
        for (let i = 0; i < 20; i++) assert.equal((await reserve(a, t0 + 5, i)).ok, true);
        const late = await reserve(b, t0 + 3, 99); // read its clock before instance a, reached the database after
        assert.deepEqual(late.ok === false && late.exceeded, 'minute');
      });
    }

    test('sandbox: stops per Paris day (winter: reset at 23:00Z), refused whole; a released call gives its stops back', async () => {
      const store = await (await freshDb(kind)).open();
      const clock = manualClock('2026-01-15T08:00:00Z');
      const billing = new Billing(store, { limits, clock });
      const { record } = await billing.issueKey('test');
      const failed = await billing.reserveSandbox(record, 10, 'fails');
      assert.deepEqual(await billing.sandboxQuotas(record), { sandboxStopsRemainingToday: 190, sandboxCallsRemainingThisMinute: 19 });
      await billing.releaseSandbox(failed);
      assert.deepEqual(await billing.sandboxQuotas(record), { sandboxStopsRemainingToday: 200, sandboxCallsRemainingThisMinute: 19 });
      clock.advance(61_000);
      for (let i = 0; i < 19; i++) { await billing.consumeSandbox(await billing.reserveSandbox(record, 10, `d${i}`)); clock.advance(61_000); }
      await billing.consumeSandbox(await billing.reserveSandbox(record, 5, 'five'));
      assert.equal((await billing.sandboxQuotas(record)).sandboxStopsRemainingToday, 5);
      clock.set('2026-01-15T22:59:59Z'); // 23:59:59 in Paris
      const err = rejected(await billing.reserveSandbox(record, 6, 'too-many').then(() => null, (e) => e), 429, 'sandbox_rate_limited');
      assert.equal(err.extra.limit, 200);
      assert.equal(err.extra.resetAt, '2026-01-15T23:00:00.000Z');
      await billing.reserveSandbox(record, 5, 'fits');
      clock.set('2026-01-15T23:00:00Z'); // Paris midnight
      assert.equal((await billing.sandboxQuotas(record)).sandboxStopsRemainingToday, 200);
    });

    test('idempotency: started, in progress, conflict, replay after settle, free again after abandon; one claim when instances race', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open(), await db.open()];
      const key = await liveKey(stores[0], 100);
      const begin = (s: Store, idempotencyKey: string, requestHash: string, nowMs = Date.now(), untilMs = nowMs + 60_000) => s.beginIdempotent({
        keyId: key.id, idempotencyKey, requestHash, nowMs, expiredBeforeMs: nowMs - 86_400_000, pending: { untilMs, owner: 'a' },
      });
      const race = await Promise.all(Array.from({ length: 9 }, (_, i) => begin(stores[i % 3], 'k1', 'hash-a')));
      assert.equal(race.filter((o) => o.kind === 'started').length, 1);
      assert.ok(race.every((o) => o.kind === 'started' || o.kind === 'in_progress'));
      assert.deepEqual(await begin(stores[1], 'k1', 'hash-b'), { kind: 'conflict' });
      const debit = await stores[0].debit(key.id, 3, 'req', now, pending());
      assert.ok(debit.ok);
      assert.equal(await stores[2].settleCharge({ debitId: debit.debitId, idempotency: { keyId: key.id, idempotencyKey: 'k1', status: 200, body: '{"ok":1}' } }), true);
      assert.deepEqual(await begin(stores[1], 'k1', 'hash-a'), { kind: 'replay', status: 200, body: '{"ok":1}' });
      // abandon frees a pending claim only
      assert.deepEqual(await begin(stores[0], 'k2', 'h'), { kind: 'started' });
      await stores[1].abandonIdempotent(key.id, 'k2');
      assert.deepEqual(await begin(stores[2], 'k2', 'h'), { kind: 'started' });
      // a pending claim past its expiry belongs to a dead call: claimable again, even with another body
      const t0 = Date.now();
      assert.deepEqual(await begin(stores[0], 'k3', 'h1', t0, t0 + 1000), { kind: 'started' });
      assert.deepEqual(await begin(stores[1], 'k3', 'h2', t0 + 500), { kind: 'conflict' });
      assert.deepEqual(await begin(stores[1], 'k3', 'h2', t0 + 1000), { kind: 'started' });
      // records older than the TTL are forgotten
      assert.deepEqual(await begin(stores[0], 'k1', 'hash-c', Date.now() + 2 * 86_400_000), { kind: 'started' });
    });

    test('console test keys: per-address and per-e-mail limits hold when instances issue at once', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open(), await db.open()];
      const consoles = stores.map((s) => new ConsoleTestKeys(s, { perIpPerDay: 4, perEmailPerDay: 2 }));
      const byIp = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => consoles[i % 3].issue(`u${i}@example.com`, '203.0.113.7')));
      assert.equal(byIp.filter((r) => r.status === 'fulfilled').length, 4);
      for (const r of byIp) if (r.status === 'rejected') rejected(r.reason, 429, 'rate_limited');
      const byEmail = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => consoles[i % 3].issue('Same@Example.com', `198.51.100.${i}`)));
      assert.equal(byEmail.filter((r) => r.status === 'fulfilled').length, 2);
      const keys = await stores[0].listKeys();
      assert.equal(keys.length, 6);
      assert.ok(keys.every((k) => k.kind === 'test' && k.balance === 0));
    });

    test('leases: a live lease\'s charges are never given back by others; once expired, one sweep ends it and gives them back exactly once (3 sweepers at once)', async () => {
      const db = await freshDb(kind);
      const clock = manualClock('2026-06-01T10:00:00Z');
      const stores = [await db.open(), await db.open(), await db.open()];
      const timing = { expiryMs: 10_000, heartbeatMs: 3_000 };
      const lost: string[] = [];
      const leaseA = await InstanceLease.acquire(stores[0], { host: 'host-a', pid: 101, port: 3000 }, timing, { lost: (prev) => lost.push(prev) }, clock);
      const [leaseB, leaseC] = await Promise.all([1, 2].map((i) => InstanceLease.acquire(stores[i], { host: `host-${i}`, pid: 200 + i, port: 3000 }, timing, {}, clock)));
      const a = new Billing(stores[0], { limits, clock, chargeTtlMs: 35_000, owner: leaseA });
      const { record: live } = await a.issueKey('live', { stops: 100 });
      const { record: sandbox } = await a.issueKey('test');
      const settled = await a.openCharge(live, 7, 'settled');
      await settled.settle();
      const charge = await a.openCharge(live, 10, 'req-a');
      await a.openCharge(sandbox, 4, 'sandbox-a');
      assert.deepEqual(await stores[0].beginIdempotent({ keyId: live.id, idempotencyKey: 'idem-a', requestHash: 'h', nowMs: clock().getTime(),
        expiredBeforeMs: 0, pending: { untilMs: clock().getTime() + 35_000, owner: leaseA.instanceId } }), { kind: 'started' });
      const idA = leaseA.instanceId;

      clock.advance(9_000); // A's last heartbeat was 9 s ago: still live
      const early = await Promise.all([leaseB.beat(), leaseC.beat()]);
      assert.deepEqual(early.map((r) => [r.refunded.length, r.releasedSandbox, r.releasedIdempotencyClaims, r.settledLeases.length]), [[0, 0, 0, 0], [0, 0, 0, 0]]);
      let check = await stores[1].checkIntegrity(clock());
      assert.equal(check.ok, true, JSON.stringify(check));
      const byHost = (rows: Array<Array<string | number>>) => rows.sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      assert.deepEqual(byHost(check.leases.map((l) => [l.host, l.state, l.pendingDebits, l.pendingStops, l.sandboxReservations, l.idempotencyClaims])),
        [['host-1', 'live', 0, 0, 0, 0], ['host-2', 'live', 0, 0, 0, 0], ['host-a', 'live', 1, 10, 1, 1]]);

      clock.advance(1_000); // 10 s without a heartbeat: expired
      check = await stores[2].checkIntegrity(clock());
      assert.equal(check.ok, false);
      assert.equal(check.expiredPendingDebits, 1, 'db check sees the dead instance\'s charge');
      assert.equal(check.expiredSandboxReservations, 1);
      assert.deepEqual(byHost(check.leases.map((l) => [l.host, l.instanceId, l.state])),
        [['host-1', leaseB.instanceId, 'live'], ['host-2', leaseC.instanceId, 'live'], ['host-a', idA, 'expired']]);

      const admin = new Billing(stores[2], { limits, clock });
      const reports = await Promise.all([leaseB.beat(), leaseC.beat(), admin.recoverExpiredCharges()]);
      assert.deepEqual(reports.flatMap((r) => r.settledLeases.map((l) => [l.instanceId, l.host, l.pid, l.port])), [[idA, 'host-a', 101, 3000]], 'one sweeper ends the lease');
      const refunded = reports.flatMap((r) => r.refunded);
      assert.deepEqual(refunded.map((r) => [r.stops, r.requestId, r.owner]), [[10, 'req-a', idA]], 'refunded exactly once');
      assert.equal(reports.reduce((n, r) => n + r.releasedSandbox, 0), 1);
      assert.equal(reports.reduce((n, r) => n + r.releasedIdempotencyClaims, 0), 1);
      assert.deepEqual(reports.map((r) => r.renewed), [true, true, undefined]);
      for (const lease of [leaseB, leaseC]) assert.equal((await lease.beat()).refunded.length, 0, 'only once');

      // A wakes up: its call cannot settle, says why, and A carries on under a new lease
      await assert.rejects(charge.settle(), (err: ApiError) => err.status === 502 && err.code === 'optimization_failed' && /stalled for longer than its instance lease/.test(err.message));
      assert.deepEqual(lost, [idA]);
      assert.notEqual(leaseA.instanceId, idA);
      await charge.cancel(); // the call's own cancel after that changes nothing
      assert.deepEqual((await stores[0].ledger(live.id)).map((e) => e.reason), ['admin_credit', 'debit', 'debit', 'refund']);
      assert.equal((await stores[0].findKeyByLast4(live.last4))[0].balance, 93);
      const next = await a.openCharge(live, 5, 'after-wake-up');
      await next.settle();
      clock.advance(3_600_000);
      assert.equal((await admin.recoverExpiredCharges()).refunded.length, 0, 'settled charges stay');
      check = await stores[0].checkIntegrity(clock());
      assert.equal(check.ok, true, JSON.stringify(check));
      assert.deepEqual(check.leases.map((l) => l.instanceId).includes(idA), false, 'a settled lease that holds nothing is no longer listed');
    });

    test('leases: a renewal racing a sweep of the same expired lease: the renewal wins whole or the sweep does, never half', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open()];
      const key = await liveKey(stores[0], 1000);
      const t0 = Date.UTC(2026, 5, 1, 10);
      let renewals = 0;
      for (let i = 0; i < 12; i++) {
        const id = `racer-${i}`;
        await stores[0].acquireLease({ instanceId: id, host: 'h', pid: i, port: 3000 }, new Date(t0), t0 + 10_000);
        const debit = await stores[0].debit(key.id, 1, `race-${i}`, now, { untilMs: t0 + 60_000, owner: id });
        assert.ok(debit.ok);
        const at = new Date(t0 + 10_001);
        const renew = () => stores[0].recoverCharges({ now: at, by: id, renewUntilMs: at.getTime() + 10_000 });
        const sweep = () => stores[1].recoverCharges({ now: at, by: 'sweeper' });
        // started in both orders (SQLite runs them one after the other; PostgreSQL really races them)
        const [own, other] = i % 2 === 0 ? await Promise.all([renew(), sweep()]) : (await Promise.all([sweep(), renew()])).reverse();
        if (own.renewed) {
          renewals++;
          assert.deepEqual([own.refunded.length, other.refunded.length, other.settledLeases.length], [0, 0, 0], 'a renewed lease keeps its charge');
          assert.equal(await stores[1].settleCharge({ debitId: debit.debitId }), true);
        } else {
          assert.equal(own.settledLeases.length + other.settledLeases.length, 1);
          assert.equal(own.refunded.length + other.refunded.length, 1, 'the ended lease\'s charge is given back once');
          assert.equal(await stores[0].settleCharge({ debitId: debit.debitId }), false);
        }
      }
      console.log(`# ${kind}: renewal won ${renewals} of 12 races`);
      const check = await stores[1].checkIntegrity(new Date(t0 + 10_001));
      assert.equal(check.mismatches.length, 0);
      assert.equal(check.expiredPendingDebits, 0);
    });

    test('leases: a clean release gives back what is still pending under the id and ends the lease; others\' charges stay', async () => {
      const db = await freshDb(kind);
      const clock = manualClock('2026-06-01T10:00:00Z');
      const stores = [await db.open(), await db.open()];
      const timing = { expiryMs: 10_000, heartbeatMs: 3_000 };
      const leaseA = await InstanceLease.acquire(stores[0], { host: 'a', pid: 1, port: 3001 }, timing, {}, clock);
      const leaseB = await InstanceLease.acquire(stores[1], { host: 'b', pid: 2, port: 3002 }, timing, {}, clock);
      const a = new Billing(stores[0], { limits, clock, owner: leaseA });
      const b = new Billing(stores[1], { limits, clock, owner: leaseB });
      const { record: live } = await a.issueKey('live', { stops: 100 });
      await a.openCharge(live, 3, 'orphan'); // e.g. a refund that could not be written during the call
      const theirs = await b.openCharge(live, 4, 'theirs');
      const report = await leaseA.release();
      assert.deepEqual(report?.refunded.map((r) => r.requestId), ['orphan']);
      assert.equal(await leaseA.release(), null, 'once');
      const check = await stores[1].checkIntegrity(clock());
      assert.equal(check.ok, true, JSON.stringify(check));
      assert.deepEqual(check.leases.map((l) => [l.host, l.state, l.pendingDebits]), [['b', 'live', 1]]);
      assert.deepEqual((await stores[0].recoverCharges({ now: clock(), by: 'admin' })).settledLeases, [], 'a released lease is not settled again');
      await theirs.settle();
      assert.equal((await stores[0].findKeyByLast4(live.last4))[0].balance, 96);
    });

    test('leases: an Idempotency-Key claim is in progress while its instance\'s lease lives, claimable again once the lease has ended', async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      const key = await liveKey(store, 100);
      const t0 = Date.UTC(2026, 5, 1, 10);
      await store.acquireLease({ instanceId: 'claimer', host: 'h', pid: 1, port: 3000 }, new Date(t0), t0 + 10_000);
      const begin = (nowMs: number, owner: string) => store.beginIdempotent({
        keyId: key.id, idempotencyKey: 'k', requestHash: 'h', nowMs, expiredBeforeMs: 0, pending: { untilMs: nowMs + 35_000, owner },
      });
      assert.deepEqual(await begin(t0, 'claimer'), { kind: 'started' });
      assert.deepEqual(await begin(t0 + 20_000, 'other'), { kind: 'in_progress' }, 'an expired lease not yet settled keeps its claim');
      await db.query(kind === 'sqlite' ? `UPDATE instance_leases SET ended_at_ms = ?, end_reason = 'settled', ended_by = 'x'`
        : `UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'settled', ended_by = 'x'`, [t0 + 20_000]);
      assert.deepEqual(await begin(t0 + 20_001, 'other'), { kind: 'started' });
    });

    test('settling is all or nothing: a debit whose Idempotency-Key claim was taken over stays pending, and is refunded', async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      const key = await liveKey(store, 100);
      const nowMs = Date.now();
      await store.beginIdempotent({ keyId: key.id, idempotencyKey: 'k', requestHash: 'h', nowMs, expiredBeforeMs: 0, pending: { untilMs: nowMs + 60_000, owner: 't' } });
      const debit = await store.debit(key.id, 6, 'req', now, pending());
      assert.ok(debit.ok);
      await store.abandonIdempotent(key.id, 'k');
      assert.equal(await store.settleCharge({ debitId: debit.debitId, idempotency: { keyId: key.id, idempotencyKey: 'k', status: 200, body: '{}' } }), false);
      assert.deepEqual(await store.refund(debit.debitId, now), { refunded: true, balance: 100 });
    });

    test('settle racing the recovery sweep of an expired lease: either the charge is settled or it is refunded, never both', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open()];
      const key = await liveKey(stores[0], 1000);
      const t0 = Date.now();
      await stores[0].acquireLease({ instanceId: 'x', host: 'h', pid: 1, port: 3000 }, new Date(t0 - 20_000), t0 - 10_000);
      const debits = [];
      for (let i = 0; i < 20; i++) {
        const d = await stores[0].debit(key.id, 1, `race-${i}`, now, { untilMs: t0 + 60_000, owner: 'x' });
        assert.ok(d.ok);
        debits.push(d.debitId);
      }
      const [settles, report] = await Promise.all([
        Promise.all(debits.map((debitId) => stores[0].settleCharge({ debitId }))),
        stores[1].recoverCharges({ now: new Date(t0), by: 'sweeper' }),
      ]);
      const settled = settles.filter(Boolean).length;
      assert.equal(report.settledLeases.length, 1);
      assert.equal(settled + report.refunded.length, 20);
      assert.equal((await stores[1].listKeys())[0].balance, 1000 - settled);
      assert.equal((await stores[1].checkIntegrity(new Date(t0))).ok, true);
    });

    test('charges of an owner without a lease row (written before leases) are given back past their deadline', async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      const key = await liveKey(store, 50);
      const t0 = Date.UTC(2026, 5, 1, 10);
      const debit = await store.debit(key.id, 5, 'old', now, { untilMs: t0 + 35_000, owner: 'old-host:3000' });
      assert.ok(debit.ok);
      assert.equal((await store.recoverCharges({ now: new Date(t0 + 34_999), by: 'admin' })).refunded.length, 0);
      assert.equal((await store.checkIntegrity(new Date(t0 + 34_999))).ok, true);
      assert.equal((await store.checkIntegrity(new Date(t0 + 35_000))).expiredPendingDebits, 1);
      assert.deepEqual((await store.recoverCharges({ now: new Date(t0 + 35_000), by: 'admin' })).refunded.map((r) => r.owner), ['old-host:3000']);
    });

    test('purchases: one payment per Stripe event and per session, also when the same event reaches several instances at once', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open(), await db.open()];
      const first = purchase();
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => stores[i % 3].recordPurchase({ ...first, newKey: material().newKey })));
      assert.equal(outcomes.filter((o) => o.kind === 'credited').length, 1);
      assert.ok(outcomes.every((o) => o.kind === 'credited' || (o.kind === 'duplicate' && o.matched === 'event')));
      assert.deepEqual(await stores[1].recordPurchase(purchase({ stripeSessionId: first.stripeSessionId })), { kind: 'duplicate', matched: 'session' });
      // two different sessions of one new address at once: one key, credited twice
      const both = await Promise.all([stores[0].recordPurchase(purchase({ email: 'new@example.com' })), stores[1].recordPurchase(purchase({ email: 'NEW@example.com' }))]);
      assert.deepEqual(both.map((o) => o.kind === 'credited' && o.createdKey).sort(), [false, true]);
      const keys = await stores[2].listKeys();
      assert.equal(keys.length, 2);
      assert.deepEqual(keys.map((k) => k.balance), [2000, 4000]);
      assert.equal((await stores[2].listPayments()).length, 3);
      assert.equal((await stores[2].listMail()).length, 3);
      const [payment] = await stores[2].listPayments();
      assert.deepEqual({ createdKey: payment.createdKey, stops: payment.stops, at: payment.createdAt }, { createdKey: true, stops: 2000, at: '2026-03-01T10:00:00.000Z' });
      for (const k of keys) assert.equal(await ledgerSum(stores[0], k.id), k.balance);
    });

    test('purchases: the most recent active live key of the e-mail (any case) is credited; a failure leaves nothing', async () => {
      const store = await (await freshDb(kind)).open();
      await store.createKey({ kind: 'test', ...material().newKey, email: 'buyer@example.com', initialStops: 0, reason: 'admin_credit', now });
      await store.createKey({ kind: 'live', ...material().newKey, email: 'BUYER@example.com', initialStops: 5, reason: 'admin_credit', now });
      const newer = material();
      await store.createKey({ kind: 'live', ...newer.newKey, email: 'buyer@example.com', initialStops: 7, reason: 'admin_credit', now });
      const revoked = material();
      await store.createKey({ kind: 'live', ...revoked.newKey, email: 'buyer@example.com', initialStops: 0, reason: 'admin_credit', now });
      await store.revokeKey(revoked.newKey.keyHash, now);
      const outcome = await store.recordPurchase(purchase({ email: 'Buyer@Example.com' }));
      assert.ok(outcome.kind === 'credited' && !outcome.createdKey && outcome.key.last4 === newer.newKey.last4 && outcome.balance === 2007);
      const failing = purchase({ email: 'other@example.com', composeMail: () => { throw new Error('boom'); } });
      await assert.rejects(store.recordPurchase(failing), /boom/);
      assert.equal((await store.listKeys()).length, 4);
      assert.equal((await store.listPayments()).length, 1);
      assert.equal((await store.recordPurchase(purchase({ stripeEventId: failing.stripeEventId, stripeSessionId: failing.stripeSessionId }))).kind, 'credited');
    });

    test('findPaymentBySession: the payment of a session and when its e-mail was sent; a top-up reports its own e-mail', async () => {
      const store = await (await freshDb(kind)).open();
      assert.equal(await store.findPaymentBySession('cs_test_unknown'), null);
      const first = purchase();
      const created = await store.recordPurchase(first);
      assert.ok(created.kind === 'credited');
      const pending = await store.findPaymentBySession(first.stripeSessionId);
      assert.deepEqual(pending && { stops: pending.stops, createdKey: pending.createdKey, keyLast4: pending.keyLast4, mailSentAt: pending.mailSentAt },
        { stops: 2000, createdKey: true, keyLast4: created.key.last4, mailSentAt: null });
      await store.markMailSent(created.outboxId, new Date('2026-03-01T10:00:05Z'));
      assert.equal(new Date((await store.findPaymentBySession(first.stripeSessionId))!.mailSentAt!).toISOString(), '2026-03-01T10:00:05.000Z');
      const second = purchase({ now: new Date('2026-03-02T09:00:00Z') });
      await store.recordPurchase(second);
      const topUp = await store.findPaymentBySession(second.stripeSessionId);
      assert.equal(topUp?.createdKey, false);
      assert.equal(topUp?.mailSentAt, null, 'the top-up e-mail is not the first purchase\'s');
    });

    test('replaceKey moves the balance through ledger rows, revokes the old key, cancels its unsent mail', async () => {
      const store = await (await freshDb(kind)).open();
      const old = material();
      const oldRecord = await store.createKey({ kind: 'live', ...old.newKey, email: 'fleet@example.com', initialStops: 1234, reason: 'purchase', now });
      await store.enqueueMail({ kind: 'new_key', to: 'fleet@example.com', subject: 's', body: old.key }, oldRecord.id, now);
      const fresh = material();
      const outcome = await store.replaceKey({
        oldKeyId: oldRecord.id, newKey: fresh.newKey, now,
        composeMail: ({ newKey, balance }) => ({ kind: 'replacement_key', to: newKey.email!, subject: 'replacement', body: `${fresh.key} ${balance}` }),
      });
      assert.equal(outcome.moved, 1234);
      assert.equal(outcome.newKey.balance, 1234);
      assert.ok(outcome.oldKey.revokedAt);
      for (const key of await store.listKeys()) assert.equal(await ledgerSum(store, key.id), key.balance);
      const mail = await store.listMail();
      assert.deepEqual(mail.map((m) => [m.kind, m.body === '', m.cancelledAt !== null]), [['new_key', true, true], ['replacement_key', false, false]]);
      await assert.rejects(store.replaceKey({ oldKeyId: oldRecord.id, newKey: material().newKey, now, composeMail: () => ({ kind: 'replacement_key', to: 'x', subject: 's', body: 'b' }) }), /revoked/);
    });

    test('a purchase racing a key replacement for the same e-mail credits the replacement key, not a third key', async () => {
      const db = await freshDb(kind);
      const [a, b] = [await db.open(), await db.open()];
      for (let round = 0; round < 5; round++) {
        const email = `race${round}@example.com`;
        const old = await a.createKey({ kind: 'live', ...material().newKey, email, initialStops: 10, reason: 'purchase', now });
        const [replaced, bought] = await Promise.all([
          a.replaceKey({ oldKeyId: old.id, newKey: material().newKey, now, composeMail: () => ({ kind: 'replacement_key', to: email, subject: 's', body: 'b' }) }),
          b.recordPurchase(purchase({ email })),
        ]);
        assert.equal(bought.kind, 'credited');
        const active = (await b.listKeys()).filter((k) => k.email === email && !k.revokedAt);
        assert.equal(active.length, 1, 'one active key for the address');
        assert.equal(active[0].id, replaced.newKey.id);
        assert.equal(active[0].balance, 2010);
      }
    });

    test('outbox: one sender per message across instances; lease; sent body blanked', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open(), await db.open()];
      const t = new Date();
      const id = await stores[0].enqueueMail({ kind: 'top_up', to: 'a@example.com', subject: 's', body: 'b' }, null, t);
      const claims = await Promise.all(Array.from({ length: 9 }, (_, i) => stores[i % 3].claimMail(id, t, new Date(t.getTime() + 60_000))));
      assert.equal(claims.filter((c) => c !== null).length, 1);
      assert.deepEqual(await stores[1].dueMail(t, 10), []);
      assert.deepEqual(await stores[1].dueMail(new Date(t.getTime() + 60_000), 10), [id], 'due again after the lease (the sender died)');
      for (let i = 0; i < 10; i++) await stores[0].enqueueMail({ kind: 'top_up', to: `u${i}@example.com`, subject: 's', body: 'secret' }, null, t);
      const senders = stores.map(() => recordingSender());
      const outboxes = stores.map((s, i) => new Outbox(s, senders[i], silent));
      await Promise.all(outboxes.map((o) => o.kick()));
      const sentTo = senders.flatMap((s) => s.sent.map((m) => m.to)).sort();
      assert.deepEqual(sentTo, Array.from({ length: 10 }, (_, i) => `u${i}@example.com`).sort(), 'each message sent exactly once');
      const rows = (await stores[2].listMail()).filter((m) => m.id !== id);
      assert.ok(rows.every((m) => m.sentAt && m.body === '' && m.attempts === 1));
      await stores[0].markMailFailed(id, 'x'.repeat(2000), new Date(t.getTime() + 5000));
      const failed = (await stores[0].listMail()).find((m) => m.id === id)!;
      assert.equal(failed.lastError?.length, 1000);
      assert.equal(await stores[0].rescheduleMail(t), 1);
      for (const o of outboxes) await o.close();
    });

    test('geocode cache: put, get, overwrite with precision and engine; concurrent puts of one key from several instances', async () => {
      const db = await freshDb(kind);
      const stores = [await db.open(), await db.open()];
      const entry = (result: string, precision: string | null = 'housenumber', engine: string | null = 'geoplateforme') => ({ result, precision, engine });
      assert.equal(await stores[0].getCachedGeocode('paris'), undefined);
      await stores[0].putCachedGeocode('paris', entry('{"a":1}'), now);
      assert.deepEqual(await stores[1].getCachedGeocode('paris'), entry('{"a":1}'));
      await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 2].putCachedGeocode('lyon', entry(`{"v":${i}}`, 'street', `e${i}`), now)));
      const lyon = (await stores[0].getCachedGeocode('lyon'))!;
      assert.match(lyon.result, /^\{"v":(\d)\}$/);
      assert.equal(lyon.engine, `e${/(\d)/.exec(lyon.result)![1]}`, 'one row: result and engine of the same put');
      await stores[1].putCachedGeocode('paris', entry('{"a":2}', 'municipality', 'ban'), now);
      assert.deepEqual(await stores[0].getCachedGeocode('paris'), entry('{"a":2}', 'municipality', 'ban'));
      await stores[1].putCachedGeocode('ghost', entry('null', null, null), now);
      assert.deepEqual(await stores[0].getCachedGeocode('ghost'), entry('null', null, null));
      const p = kind === 'sqlite' ? '?' : '$1';
      assert.deepEqual(await db.query(`SELECT precision, engine FROM geocode_cache WHERE cache_key = ${p}`, ['paris']), [{ precision: 'municipality', engine: 'ban' }]);
    });

    test('geocode cache migration: rows cached before it get their precision and engine from their JSON', async () => {
      const db = await freshDb(kind);
      await (await db.open()).close();
      const version = kind === 'sqlite' ? 8 : 4;
      const p = (n: number) => (kind === 'sqlite' ? '?' : `$${n}`);
      // back to the schema before the migration, with rows written then
      await db.query('DROP INDEX geocode_cache_engine_precision');
      await db.query('ALTER TABLE geocode_cache DROP COLUMN precision');
      await db.query('ALTER TABLE geocode_cache DROP COLUMN engine');
      await db.query(`DELETE FROM schema_migrations WHERE version = ${p(1)}`, [version]);
      const old = '{"latitude":48.85,"longitude":2.36,"precision":"municipality","provider":"embedded"}';
      await db.query(`INSERT INTO geocode_cache (cache_key, result, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, ['embedded:1 rue|75004|paris', old, now.toISOString()]);
      await db.query(`INSERT INTO geocode_cache (cache_key, result, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, ['ban:ghost', 'null', now.toISOString()]);
      const store = await db.open();
      assert.deepEqual(await store.getCachedGeocode('embedded:1 rue|75004|paris'), { result: old, precision: 'municipality', engine: 'embedded' });
      assert.deepEqual(await store.getCachedGeocode('ban:ghost'), { result: 'null', precision: null, engine: null });
    });

    test('integrity check finds a balance that disagrees with the ledger; ping answers', async () => {
      const db = await freshDb(kind);
      const store = await db.open();
      const key = await liveKey(store, 100);
      await store.ping();
      assert.deepEqual(await store.checkIntegrity(now), { keysChecked: 1, mismatches: [], expiredPendingDebits: 0, expiredSandboxReservations: 0, leases: [], ok: true });
      await db.query(kind === 'sqlite' ? 'UPDATE api_keys SET balance = balance + 1 WHERE id = ?' : 'UPDATE api_keys SET balance = balance + 1 WHERE id = $1', [key.id]);
      const report = await store.checkIntegrity(now);
      assert.equal(report.ok, false);
      assert.deepEqual(report.mismatches, [{ keyId: key.id, balance: 101, ledgerSum: 100 }]);
    });

    test(kind === 'sqlite' ? 'backup writes a consistent copy' : 'backup refuses and points the admin to pg_dump', async () => {
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
    });
  });
}

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
      const otherLock = other.query("SELECT pg_advisory_xact_lock(hashtext('purchase:' || lower($1)))", ['fleet@example.com']);
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
    const pgStore = await openStore({ databaseUrl: url, databasePath: '/nonexistent/never.db', databaseBusyTimeoutMs: 1000 });
    const sqliteStore = await openStore({ databaseUrl: null, databasePath: join(tempDir(), 's.db'), databaseBusyTimeoutMs: 1000 });
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
    const err = await PostgresStore.open(`postgres://postgres@127.0.0.1:${port}/nowhere`, { connectionTimeoutMs: 2000 }).then(() => null, (e) => e);
    assert.ok(err, 'open must fail');
    assert.equal(isStorageUnavailable(err), true, String(err));
    for (const code of ['08006', '08001', '53100', '53300', '57P01', '57P03', '55P03', '25006']) assert.equal(isStorageUnavailable({ code }), true, code);
    for (const code of ['23505', '40001', '42P01', '22P02']) assert.equal(isStorageUnavailable({ code }), false, code);
    // the server terminates our connection (an administrator, a failover): 57P01, then reconnects
    const url = await server.createDatabase('terminate');
    const store = await PostgresStore.open(url, { poolSize: 1 });
    try {
      await store.ping();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'route-optimization-service'");
      await admin.end();
      await new Promise((r) => setTimeout(r, 100));
      const failure = await store.ping().then(() => null, (e) => e);
      if (failure) assert.equal(isStorageUnavailable(failure), true, String(failure));
      await store.ping(); // the pool replaces the broken connection
    } finally {
      await store.close();
    }
  });
});
