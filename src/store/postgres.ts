/**
 * The networked store: PostgreSQL through a `pg` Pool. This module owns every
 * SQL statement of the PostgreSQL store; it keeps each guarantee of the SQLite
 * store (src/store/sqlite.ts) across several service instances sharing one
 * database:
 * - balances change only by one conditional UPDATE (row lock + re-check), with
 *   their ledger row in the same transaction;
 * - a refund is a ledger row UNIQUE on refund_of (INSERT … ON CONFLICT DO NOTHING);
 * - per-key work that reads then writes (sandbox caps, key replacement) locks
 *   the key row first (SELECT … FOR UPDATE); the console limits and purchases
 *   serialize on transaction-scoped advisory locks;
 * - serialization failures and deadlocks (40001, 40P01) are retried here;
 * - connection loss and "cannot write now" errors carry a SQLSTATE that
 *   isStorageUnavailable() recognises (classes 08, 53, 57P).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { CustomTypesConfig, PoolClient, PoolConfig } from 'pg';
import { assetPath } from '../assets.js';
import { readMigrations } from './migrate.js';
import type {
  ApiKeyRecord, ConsoleTestKeyOutcome, ConsoleTestKeyRequest, DebitOutcome, IdempotencyBegin, IdempotencyOutcome, IntegrityReport, LeaseHolder, LedgerEntry,
  NewKey, NewOutboxMessage, OutboxMessage, PaymentRecord, PaymentStatus, PendingMark, PurchaseOutcome, PurchaseRequest, RecoveryReport, RecoveryRequest, RefundOutcome,
  ReplaceKeyOutcome, ReplaceKeyRequest, SandboxReservationOutcome, SandboxReservationRequest, SandboxUsage, SandboxWindow, SettleCharge, Store, GeocodeCacheEntry,
} from './types.js';
import { ENDED_LEASE_RETENTION_MS, PAYMENT_BY_SESSION_SQL, holdsWhileGone, toKey, toLeaseStatus, toOutbox, toPayment, toPaymentStatus, type KeyRow, type LeaseRow, type OutboxRow, type PaymentRow } from './rows.js';

const MIGRATIONS_DIR = assetPath('migrations/postgres');
/** pg_advisory_lock key held while migrations run, so instances starting together apply each migration once. */
const MIGRATION_LOCK = 72_650_001;
/** Transaction-scoped advisory lock serializing the console's test-key limits. */
const CONSOLE_KEYS_LOCK = 72_650_002;
/** How many times a transaction is retried after a serialization failure or deadlock. */
const MAX_ATTEMPTS = 6;

const timestamptzParser = pg.types.getTypeParser(1184) as (value: string) => Date;
/**
 * bigint and numeric (COUNT, SUM, ids, balances) as JS numbers; timestamptz as
 * ISO-8601 strings, as the SQLite store answers them. Per pool, not global.
 */
const TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1184) return (value: string) => timestamptzParser(value).toISOString();
    return pg.types.getTypeParser(oid, format);
  }) as CustomTypesConfig['getTypeParser'],
};


const KEY_COLUMNS = 'id, kind, last4, email, balance, created_at, revoked_at';

/**
 * A pending charge (row `t`) whose call can no longer complete, as the sweeper $2 sees it at $1 (ms):
 * its owner's lease has ended, or it is past its deadline and its owner is the sweeper itself or an owner
 * without a lease row (written before leases existed). A live lease's charges are left to their owner; an
 * expired one's wait until a sweep ends the lease under its row lock (so a renewal racing the sweep wins or loses whole).
 */
const GONE = (t: string) => `(EXISTS (SELECT 1 FROM instance_leases x WHERE x.instance_id = ${t}.owner AND x.ended_at_ms IS NOT NULL)
  OR (${t}.expires_at_ms <= $1 AND (${t}.owner = $2::text OR NOT EXISTS (SELECT 1 FROM instance_leases x WHERE x.instance_id = ${t}.owner))))`;
/** What `db check` counts as stale at $1: past its deadline, or its owner's lease expired or ended. */
const STALE = (t: string) => `(${t}.expires_at_ms <= $1 OR EXISTS (SELECT 1 FROM instance_leases x
  WHERE x.instance_id = ${t}.owner AND (x.ended_at_ms IS NOT NULL OR x.expires_at_ms <= $1)))`;

/** Thrown inside a transaction to roll it back when a charge can no longer be settled. */
class NotSettled extends Error {}

const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

const isRetryable = (err: unknown): boolean => {
  const code = sqlState(err);
  return code === '40001' || code === '40P01';
};

/** The SQLSTATE of a violated UNIQUE constraint. */
const isUniqueViolation = (err: unknown): boolean => sqlState(err) === '23505';

const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable/i;

/**
 * Errors of the connection itself (refused, reset, pool wait timed out) have no
 * SQLSTATE: they are given 08006 (connection failure) so isStorageUnavailable()
 * treats them like the server's own "cannot take this now" answers.
 */
export function mapPostgresError(err: unknown): unknown {
  if (!(err instanceof Error) || sqlState(err) !== undefined) return err;
  const errno = (err as { code?: unknown }).code;
  if ((typeof errno === 'string' && CONNECTION_ERRNOS.has(errno)) || CONNECTION_MESSAGES.test(err.message)) {
    return Object.assign(new Error(`PostgreSQL is unavailable: ${err.message}`, { cause: err }), { code: '08006' });
  }
  return err;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const backoff = (attempt: number) => sleep(Math.random() * 10 * 2 ** attempt);

/** One transaction's queries. */
class Tx {
  constructor(private readonly client: PoolClient) {}

  async rows<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.client.query(sql, params)).rows as R[];
  }

  async one<R>(sql: string, params: unknown[] = []): Promise<R | undefined> {
    return (await this.rows<R>(sql, params))[0];
  }

  /** Number of rows the statement changed. */
  async run(sql: string, params: unknown[] = []): Promise<number> {
    return (await this.client.query(sql, params)).rowCount ?? 0;
  }
}

export interface PostgresStoreOptions {
  /** Largest number of connections this instance opens (default 10). */
  poolSize?: number;
  /**
   * How long a statement waits for a lock held by another session before failing with 55P03 (503
   * storage_unavailable), as the SQLite store's busy timeout does (default 5 s; 0 = forever).
   */
  lockTimeoutMs?: number;
  /** How long a query waits for a free connection before failing as unavailable (default 15 s). */
  connectionTimeoutMs?: number;
  /** Extra pg Pool settings (tests). */
  pool?: Omit<PoolConfig, 'connectionString' | 'types'>;
}

export function createPostgresPool(url: string, options: PostgresStoreOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 15_000,
    idleTimeoutMillis: 30_000,
    application_name: 'route-optimization-service',
    ...options.pool,
    types: TYPES,
  });
  // a session setting rather than a startup parameter, which poolers such as PgBouncer refuse;
  // node-postgres runs it before any query of the new connection
  const lockTimeoutMs = Math.max(0, Math.floor(options.lockTimeoutMs ?? 5_000));
  pool.on('connect', (client) => { client.query(`SET lock_timeout = ${lockTimeoutMs}`).catch(() => {}); });
  // an idle connection that breaks (server restart) must not crash the process: the next query reports it
  pool.on('error', () => {});
  return pool;
}

/** Applies the numbered migrations not yet applied, under a session advisory lock. Returns the versions applied. */
export async function applyPostgresMigrations(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect().catch((err: unknown) => { throw mapPostgresError(err); });
  const done: number[] = [];
  try {
    // instances starting together wait for each other's migrations as long as they take
    const { lock_timeout: lockTimeout } = (await client.query('SHOW lock_timeout')).rows[0] as { lock_timeout: string };
    await client.query('SET lock_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`);
      const applied = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((r: { version: number }) => r.version));
      for (const migration of readMigrations(MIGRATIONS_DIR)) {
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(`PostgreSQL migration ${migration.name} failed: ${(err as Error).message}`, { cause: err });
        }
        done.push(migration.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      // the connection goes back to the pool: the configured lock_timeout again
      await client.query(`SET lock_timeout = '${lockTimeout.replace(/'/g, '')}'`).catch(() => {});
    }
  } finally {
    client.release();
  }
  return done;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private closed = false;

  private constructor(readonly pool: pg.Pool) {}

  /** Connects, applies pending migrations (several instances may do this at once), and returns the store. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const pool = createPostgresPool(url, options);
    try {
      await applyPostgresMigrations(pool);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
    return new PostgresStore(pool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** Runs `fn` in one transaction; retries it from the start after a serialization failure or a deadlock. */
  private async tx<T>(fn: (t: Tx) => Promise<T>, mode: 'read write' | 'snapshot' = 'read write'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PoolClient;
      try {
        client = await this.pool.connect();
      } catch (err) {
        throw mapPostgresError(err);
      }
      let broken = false;
      // a connection lost mid-transaction is also emitted as 'error' on the checked-out client: without a
      // listener that would crash the process (the query in flight rejects with the same error, handled below)
      const onError = (): void => { broken = true; };
      client.on('error', onError);
      try {
        await client.query(mode === 'snapshot' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
        const result = await fn(new Tx(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => { broken = true; });
        if (isRetryable(err) && attempt < MAX_ATTEMPTS) {
          await backoff(attempt);
          continue;
        }
        throw mapPostgresError(err);
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    }
  }

  /** One statement on its own (autocommit), retried after a deadlock. */
  private async q<R>(sql: string, params: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.pool.query(sql, params);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      } catch (err) {
        if (isRetryable(err) && attempt < MAX_ATTEMPTS) {
          await backoff(attempt);
          continue;
        }
        throw mapPostgresError(err);
      }
    }
  }

  private async keyById(t: Tx, id: number): Promise<ApiKeyRecord> {
    return toKey((await t.one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]))!);
  }

  private async insertKey(t: Tx, k: { kind: 'test' | 'live'; keyHash: string; last4: string; email: string | null; createdAt: string }): Promise<number> {
    const row = await t.one<{ id: number }>(`INSERT INTO api_keys (kind, key_hash, last4, email, balance, created_at)
      VALUES ($1, $2, $3, $4, 0, $5) RETURNING id`, [k.kind, k.keyHash, k.last4, k.email, k.createdAt]);
    return row!.id;
  }

  private async insertLedger(t: Tx, e: {
    keyId: number; delta: number; reason: LedgerEntry['reason']; requestId: string | null; clientRequestId?: string | null; refundOf: number | null; createdAt: string;
  }): Promise<number> {
    const row = await t.one<{ id: number }>(`INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, [e.keyId, e.delta, e.reason, e.requestId, e.clientRequestId ?? null, e.refundOf, e.createdAt]);
    return row!.id;
  }

  async createKey(key: NewKey): Promise<ApiKeyRecord> {
    const createdAt = key.now.toISOString();
    return this.tx(async (t) => {
      const keyId = await this.insertKey(t, { ...key, createdAt });
      if (key.initialStops > 0) await this.creditRow(t, keyId, key.initialStops, key.reason, null, createdAt);
      return this.keyById(t, keyId);
    });
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async findKeyByLast4(last4: string): Promise<ApiKeyRecord[]> {
    return (await this.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE last4 = $1 ORDER BY id`, [last4])).rows.map(toKey);
  }

  async revokeKey(keyHash: string, now: Date): Promise<boolean> {
    return (await this.q('UPDATE api_keys SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL', [now.toISOString(), keyHash])).rowCount === 1;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (await this.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`)).rows.map(toKey);
  }

  async credit(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, now: Date): Promise<number> {
    return this.tx(async (t) => (await this.creditRow(t, keyId, stops, reason, requestId, now.toISOString())).balance);
  }

  private async creditRow(t: Tx, keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, createdAt: string): Promise<{ ledgerId: number; balance: number }> {
    if (!Number.isSafeInteger(stops) || stops <= 0) throw new RangeError('credit needs a positive whole number of stops');
    const updated = await t.one<{ balance: number }>(`UPDATE api_keys SET balance = balance + $1 WHERE id = $2 AND kind = 'live' RETURNING balance`, [stops, keyId]);
    if (!updated) {
      const key = await t.one<{ kind: string }>('SELECT kind FROM api_keys WHERE id = $1', [keyId]);
      if (!key) throw new Error(`no key with id ${keyId}`);
      throw new Error('only live keys hold a balance');
    }
    const ledgerId = await this.insertLedger(t, { keyId, delta: stops, reason, requestId, refundOf: null, createdAt });
    return { ledgerId, balance: updated.balance };
  }

  async debit(keyId: number, stops: number, requestId: string, now: Date, pending: PendingMark, clientRequestId: string | null = null): Promise<DebitOutcome> {
    return this.tx(async (t): Promise<DebitOutcome> => {
      // one conditional statement: a concurrent debit of the same key waits for our row lock, then re-checks the balance
      const updated = await t.one<{ balance: number }>(`UPDATE api_keys SET balance = balance - $1
        WHERE id = $2 AND kind = 'live' AND revoked_at IS NULL AND balance >= $1 RETURNING balance`, [stops, keyId]);
      if (!updated) {
        const row = await t.one<{ balance: number }>('SELECT balance FROM api_keys WHERE id = $1', [keyId]);
        return { ok: false, balance: row?.balance ?? 0 };
      }
      const debitId = await this.insertLedger(t, { keyId, delta: -stops, reason: 'debit', requestId, clientRequestId, refundOf: null, createdAt: now.toISOString() });
      await t.run('INSERT INTO pending_debits (debit_id, expires_at_ms, owner) VALUES ($1, $2, $3)', [debitId, pending.untilMs, pending.owner]);
      return { ok: true, debitId, balance: updated.balance };
    });
  }

  /** The refund row first: UNIQUE (refund_of) lets exactly one transaction give a debit back, whoever tries. */
  private async refundRow(t: Tx, debit: { debitId: number; keyId: number; stops: number; requestId: string | null }, createdAt: string): Promise<number | null> {
    // the refund carries its debit's ids, the caller's X-Request-Id included
    const inserted = await t.one<{ id: number }>(`INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
      SELECT $1, $2, 'refund', $3, client_request_id, $4, $5 FROM ledger WHERE id = $4
      ON CONFLICT (refund_of) DO NOTHING RETURNING id`,
    [debit.keyId, debit.stops, debit.requestId, debit.debitId, createdAt]);
    if (!inserted) return null;
    const row = await t.one<{ balance: number }>('UPDATE api_keys SET balance = balance + $1 WHERE id = $2 RETURNING balance', [debit.stops, debit.keyId]);
    return row!.balance;
  }

  async refund(debitId: number, now: Date): Promise<RefundOutcome> {
    return this.tx(async (t): Promise<RefundOutcome> => {
      const debit = await t.one<{ key_id: number; delta: number; reason: string; request_id: string | null }>(
        'SELECT key_id, delta, reason, request_id FROM ledger WHERE id = $1', [debitId]);
      if (!debit || debit.reason !== 'debit') throw new Error(`ledger entry ${debitId} is not a debit`);
      await t.run('DELETE FROM pending_debits WHERE debit_id = $1', [debitId]);
      const balance = await this.refundRow(t, { debitId, keyId: debit.key_id, stops: -debit.delta, requestId: debit.request_id }, now.toISOString());
      if (balance === null) {
        const row = await t.one<{ balance: number }>('SELECT balance FROM api_keys WHERE id = $1', [debit.key_id]);
        return { refunded: false, balance: row!.balance };
      }
      return { refunded: true, balance };
    });
  }

  async ledger(keyId: number): Promise<LedgerEntry[]> {
    const { rows } = await this.q<{
      id: number; key_id: number; delta: number; reason: LedgerEntry['reason']; request_id: string | null; client_request_id: string | null;
      refund_of: number | null; created_at: string;
    }>('SELECT id, key_id, delta, reason, request_id, client_request_id, refund_of, created_at FROM ledger WHERE key_id = $1 ORDER BY id', [keyId]);
    return rows.map((r) => ({
      id: r.id, keyId: r.key_id, delta: r.delta, reason: r.reason, requestId: r.request_id, clientRequestId: r.client_request_id,
      refundOf: r.refund_of, createdAt: r.created_at,
    }));
  }

  /**
   * Unlike the SQLite store, calls stamped after `nowMs` count too: another instance may have read its
   * clock a moment after ours yet reserved before us; leaving its call out would let one call too many through.
   */
  private static readonly USAGE_SQL = `SELECT
      (SELECT COUNT(*) FROM sandbox_calls WHERE key_id = $1 AND at_ms >= $2) AS calls,
      (SELECT MIN(at_ms) FROM sandbox_calls WHERE key_id = $1 AND at_ms >= $2) AS oldest,
      (SELECT COALESCE(SUM(stops), 0) FROM sandbox_calls WHERE key_id = $1 AND paris_day = $3 AND state <> 'released') AS stops`;

  private static toUsage(row: { calls: number; oldest: number | null; stops: number }): SandboxUsage {
    return { callsInWindow: row.calls, oldestCallMs: row.oldest, stopsToday: row.stops };
  }

  async sandboxUsage(w: SandboxWindow): Promise<SandboxUsage> {
    const { rows } = await this.q<{ calls: number; oldest: number | null; stops: number }>(PostgresStore.USAGE_SQL, [w.keyId, w.windowStartMs, w.day]);
    return PostgresStore.toUsage(rows[0]);
  }

  async reserveSandbox(r: SandboxReservationRequest): Promise<SandboxReservationOutcome> {
    return this.tx(async (t): Promise<SandboxReservationOutcome> => {
      // one reservation at a time per key, across every instance: count and insert under the key's row lock
      await t.run('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [r.keyId]);
      // rows older than two days can never count again
      await t.run('DELETE FROM sandbox_calls WHERE key_id = $1 AND at_ms < $2', [r.keyId, r.nowMs - 2 * 86_400_000]);
      const params = [r.keyId, r.windowStartMs, r.day];
      const usage = PostgresStore.toUsage((await t.one<{ calls: number; oldest: number | null; stops: number }>(PostgresStore.USAGE_SQL, params))!);
      if (usage.callsInWindow >= r.callsPerMinute) return { ok: false, exceeded: 'minute', usage };
      if (usage.stopsToday + r.stops > r.stopsPerDay) return { ok: false, exceeded: 'day', usage };
      const inserted = await t.one<{ id: number }>(`INSERT INTO sandbox_calls (key_id, request_id, at_ms, paris_day, stops, state, expires_at_ms, owner)
        VALUES ($1, $2, $3, $4, $5, 'reserved', $6, $7) RETURNING id`, [r.keyId, r.requestId, r.nowMs, r.day, r.stops, r.pending.untilMs, r.pending.owner]);
      const after = PostgresStore.toUsage((await t.one<{ calls: number; oldest: number | null; stops: number }>(PostgresStore.USAGE_SQL, params))!);
      return { ok: true, reservationId: inserted!.id, usage: after };
    });
  }

  async releaseSandbox(reservationId: number): Promise<void> {
    await this.q(`UPDATE sandbox_calls SET state = 'released' WHERE id = $1 AND state = 'reserved'`, [reservationId]);
  }

  async settleCharge(c: SettleCharge): Promise<boolean> {
    // each step is a conditional write racing the recovery sweep's own: whichever commits first wins, the other changes nothing;
    // all or nothing: a debit settled while its Idempotency-Key claim was taken over would charge a call that answers 502
    try {
      await this.tx(async (t): Promise<void> => {
        if (c.debitId !== undefined && await t.run('DELETE FROM pending_debits WHERE debit_id = $1', [c.debitId]) !== 1) throw new NotSettled();
        if (c.sandboxReservationId !== undefined
          && await t.run(`UPDATE sandbox_calls SET state = 'consumed' WHERE id = $1 AND state = 'reserved'`, [c.sandboxReservationId]) !== 1) throw new NotSettled();
        if (c.idempotency) {
          const i = c.idempotency;
          const changed = await t.run(`UPDATE idempotency_keys SET state = 'done', response_status = $1, response_body = $2
            WHERE key_id = $3 AND idempotency_key = $4 AND state = 'pending'`, [i.status, i.body, i.keyId, i.idempotencyKey]);
          if (changed !== 1) throw new NotSettled();
        }
      });
      return true;
    } catch (err) {
      if (err instanceof NotSettled) return false;
      throw err;
    }
  }

  async acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void> {
    await this.q(`INSERT INTO instance_leases (instance_id, host, pid, port, started_at_ms, heartbeat_at_ms, expires_at_ms)
      VALUES ($1, $2, $3, $4, $5, $5, $6)`, [holder.instanceId, holder.host, holder.pid, holder.port, now.getTime(), untilMs]);
  }

  async recoverCharges(r: RecoveryRequest): Promise<RecoveryReport> {
    return this.tx(async (t): Promise<RecoveryReport> => {
      const nowMs = r.now.getTime();
      // an ended lease is never renewed: its charges may already have been given back
      const renewed = r.renewUntilMs === undefined ? undefined : await t.run(`UPDATE instance_leases SET heartbeat_at_ms = $1, expires_at_ms = $2
        WHERE instance_id = $3 AND ended_at_ms IS NULL`, [nowMs, r.renewUntilMs, r.by]) === 1;
      // SKIP LOCKED: a lease being renewed (or ended by another sweeper) right now is left alone; a renewal waiting on our lock finds it ended
      const ended = await t.rows<LeaseHolder & { heartbeatAtMs: number }>(`UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'settled', ended_by = $2
        WHERE instance_id IN (SELECT instance_id FROM instance_leases WHERE ended_at_ms IS NULL AND expires_at_ms <= $1 FOR UPDATE SKIP LOCKED)
        RETURNING instance_id AS "instanceId", host, pid, port, heartbeat_at_ms AS "heartbeatAtMs"`, [nowMs, r.by]);
      // SKIP LOCKED: a charge being settled right now (or swept by another instance) is left to that transaction
      const claimed = await t.rows<{ debit_id: number }>(`SELECT p.debit_id FROM pending_debits p
        WHERE ${GONE('p')} ORDER BY p.debit_id FOR UPDATE SKIP LOCKED`, [nowMs, r.by]);
      const refunded = await this.giveBack(t, claimed.map((c) => c.debit_id), r.now);
      const releasedSandbox = await t.run(`UPDATE sandbox_calls s SET state = 'released' WHERE s.state = 'reserved' AND ${GONE('s')}`, [nowMs, r.by]);
      const releasedIdempotencyClaims = await t.run(`DELETE FROM idempotency_keys k WHERE k.state = 'pending' AND ${GONE('k')}`, [nowMs, r.by]);
      await t.run('DELETE FROM instance_leases WHERE ended_at_ms IS NOT NULL AND ended_at_ms < $1', [nowMs - ENDED_LEASE_RETENTION_MS]);
      return {
        refunded, releasedSandbox, releasedIdempotencyClaims, ...(renewed === undefined ? {} : { renewed }),
        settledLeases: ended.map(({ heartbeatAtMs, ...holder }) => ({ ...holder, heartbeatAt: new Date(heartbeatAtMs).toISOString() })),
      };
    });
  }

  async releaseLease(instanceId: string, now: Date): Promise<RecoveryReport> {
    return this.tx(async (t): Promise<RecoveryReport> => {
      const nowMs = now.getTime();
      await t.run(`UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'released', ended_by = $2
        WHERE instance_id = $2 AND ended_at_ms IS NULL`, [nowMs, instanceId]);
      const claimed = await t.rows<{ debit_id: number }>(`SELECT debit_id FROM pending_debits WHERE owner = $1
        ORDER BY debit_id FOR UPDATE SKIP LOCKED`, [instanceId]);
      const refunded = await this.giveBack(t, claimed.map((c) => c.debit_id), now);
      const releasedSandbox = await t.run(`UPDATE sandbox_calls SET state = 'released' WHERE state = 'reserved' AND owner = $1`, [instanceId]);
      const releasedIdempotencyClaims = await t.run(`DELETE FROM idempotency_keys WHERE state = 'pending' AND owner = $1`, [instanceId]);
      return { refunded, releasedSandbox, releasedIdempotencyClaims, settledLeases: [] };
    });
  }

  /** Refunds locked pending debits (inside a transaction); a debit already refunded is only unmarked. */
  private async giveBack(t: Tx, ids: number[], now: Date): Promise<RecoveryReport['refunded']> {
    if (ids.length === 0) return [];
    const debits = await t.rows<RecoveryReport['refunded'][number]>(`DELETE FROM pending_debits p USING ledger l
      WHERE p.debit_id = ANY($1::bigint[]) AND l.id = p.debit_id
      RETURNING l.id AS "debitId", l.key_id AS "keyId", -l.delta AS stops, l.request_id AS "requestId", p.owner AS owner`, [ids]);
    debits.sort((a, b) => a.debitId - b.debitId);
    const createdAt = now.toISOString();
    const refunded: RecoveryReport['refunded'] = [];
    for (const d of debits) if (await this.refundRow(t, d, createdAt) !== null) refunded.push(d);
    return refunded;
  }

  async checkIntegrity(now: Date): Promise<IntegrityReport> {
    // one snapshot for every count
    return this.tx(async (t): Promise<IntegrityReport> => {
      const nowMs = now.getTime();
      const mismatches = await t.rows<IntegrityReport['mismatches'][number]>(`SELECT k.id AS "keyId", k.balance AS balance, COALESCE(SUM(l.delta), 0) AS "ledgerSum"
        FROM api_keys k LEFT JOIN ledger l ON l.key_id = k.id GROUP BY k.id HAVING k.balance <> COALESCE(SUM(l.delta), 0) ORDER BY k.id`);
      const counts = (await t.one<{ keys: number; pending: number; sandbox: number }>(`SELECT
        (SELECT COUNT(*) FROM api_keys) AS keys,
        (SELECT COUNT(*) FROM pending_debits p WHERE ${STALE('p')}) AS pending,
        (SELECT COUNT(*) FROM sandbox_calls s WHERE s.state = 'reserved' AND ${STALE('s')}) AS sandbox`, [nowMs]))!;
      const leases = await t.rows<LeaseRow>(`SELECT * FROM (SELECT x.*,
          (SELECT COUNT(*) FROM pending_debits p WHERE p.owner = x.instance_id) AS pending_debits,
          (SELECT COALESCE(SUM(-l.delta), 0) FROM pending_debits p JOIN ledger l ON l.id = p.debit_id WHERE p.owner = x.instance_id) AS pending_stops,
          (SELECT COUNT(*) FROM sandbox_calls s WHERE s.state = 'reserved' AND s.owner = x.instance_id) AS sandbox_reservations,
          (SELECT COUNT(*) FROM idempotency_keys i WHERE i.state = 'pending' AND i.owner = x.instance_id) AS idempotency_claims
        FROM instance_leases x) leases
        WHERE ended_at_ms IS NULL OR pending_debits + sandbox_reservations + idempotency_claims > 0
        ORDER BY started_at_ms, instance_id`);
      const statuses = leases.map((row) => toLeaseStatus(row, nowMs));
      return {
        keysChecked: counts.keys, mismatches, expiredPendingDebits: counts.pending, expiredSandboxReservations: counts.sandbox,
        leases: statuses,
        ok: mismatches.length === 0 && counts.pending === 0 && counts.sandbox === 0 && !statuses.some(holdsWhileGone),
      };
    }, 'snapshot');
  }

  async beginIdempotent(r: IdempotencyBegin): Promise<IdempotencyOutcome> {
    return this.tx(async (t): Promise<IdempotencyOutcome> => {
      await t.run('DELETE FROM idempotency_keys WHERE created_at_ms < $1', [r.expiredBeforeMs]);
      for (;;) {
        // a concurrent claim of the same key waits on our insert, then finds our row
        const claimed = await t.run(`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, state, created_at_ms, expires_at_ms, owner)
          VALUES ($1, $2, $3, 'pending', $4, $5, $6) ON CONFLICT (key_id, idempotency_key) DO NOTHING`,
        [r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner]);
        if (claimed === 1) return { kind: 'started' };
        const row = await t.one<{ request_hash: string; state: 'pending' | 'done'; response_status: number | null; response_body: string | null; dead: boolean }>(
          `SELECT request_hash, state, response_status, response_body,
             COALESCE(k.expires_at_ms <= $3, false) OR EXISTS (SELECT 1 FROM instance_leases x WHERE x.instance_id = k.owner AND x.ended_at_ms IS NOT NULL) AS dead
           FROM idempotency_keys k WHERE key_id = $1 AND idempotency_key = $2 FOR UPDATE OF k`, [r.keyId, r.idempotencyKey, r.nowMs]);
        if (!row) continue; // deleted between our insert and our read: claim it again
        if (row.state === 'pending' && row.dead) {
          // its call died (past its deadline, or its instance's lease ended); its charge is (or will be) given back: the claim is ours now
          await t.run(`UPDATE idempotency_keys SET request_hash = $3, state = 'pending', response_status = NULL, response_body = NULL,
            created_at_ms = $4, expires_at_ms = $5, owner = $6 WHERE key_id = $1 AND idempotency_key = $2`,
          [r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner]);
          return { kind: 'started' };
        }
        if (row.request_hash !== r.requestHash) return { kind: 'conflict' };
        if (row.state === 'pending') return { kind: 'in_progress' };
        return { kind: 'replay', status: row.response_status ?? 200, body: row.response_body ?? 'null' };
      }
    });
  }

  async abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void> {
    await this.q(`DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND state = 'pending'`, [keyId, idempotencyKey]);
  }

  async getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined> {
    const row = (await this.q<GeocodeCacheEntry>('SELECT result, precision, engine FROM geocode_cache WHERE cache_key = $1', [cacheKey])).rows[0];
    return row === undefined ? undefined : { result: row.result, precision: row.precision, engine: row.engine };
  }

  async putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void> {
    await this.q(`INSERT INTO geocode_cache (cache_key, result, precision, engine, created_at) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (cache_key) DO UPDATE SET result = excluded.result, precision = excluded.precision, engine = excluded.engine,
      created_at = excluded.created_at`, [cacheKey, entry.result, entry.precision, entry.engine, now.toISOString()]);
  }

  async issueConsoleTestKey(r: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome> {
    return this.tx(async (t): Promise<ConsoleTestKeyOutcome> => {
      // the limits count rows of every address and e-mail: one issuer at a time (a rare, cheap call)
      await t.run('SELECT pg_advisory_xact_lock($1)', [CONSOLE_KEYS_LOCK]);
      const byIp = (await t.one<{ n: number; oldest: number | null }>(`SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests
        WHERE client_ip = $1 AND at_ms >= $2`, [r.clientIp, r.sinceMs]))!;
      if (byIp.n >= r.maxPerIp) return { ok: false, exceeded: 'ip', oldestMs: byIp.oldest ?? r.nowMs };
      const byEmail = (await t.one<{ n: number; oldest: number | null }>(`SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests
        WHERE email = $1 AND at_ms >= $2`, [r.email, r.sinceMs]))!;
      if (byEmail.n >= r.maxPerEmail) return { ok: false, exceeded: 'email', oldestMs: byEmail.oldest ?? r.nowMs };
      const keyId = await this.insertKey(t, { kind: 'test', keyHash: r.keyHash, last4: r.last4, email: r.email, createdAt: new Date(r.nowMs).toISOString() });
      await t.run('INSERT INTO console_key_requests (key_id, client_ip, email, at_ms) VALUES ($1, $2, $3, $4)', [keyId, r.clientIp, r.email, r.nowMs]);
      return { ok: true, record: await this.keyById(t, keyId) };
    });
  }

  async backup(_destination: string): Promise<void> {
    throw new Error('db backup copies the SQLite file only. This service runs on PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. '
      + '`pg_dump --format=custom --file=service.dump "$DATABASE_URL"` (consistent while the service runs), or with your provider\'s snapshots / WAL archiving.');
  }

  async ping(): Promise<void> {
    await this.q('SELECT 1');
  }

  async probeWrite(now: Date): Promise<void> {
    await this.q(`INSERT INTO write_probe (id, at, payload) VALUES (1, $1, $2)
      ON CONFLICT (id) DO UPDATE SET at = excluded.at, payload = excluded.payload`, [now.toISOString(), randomBytes(32 * 1024)]);
  }

  async recordPurchase(r: PurchaseRequest): Promise<PurchaseOutcome> {
    const createdAt = r.now.toISOString();
    try {
      return await this.tx(async (t): Promise<PurchaseOutcome> => {
        // purchases for one e-mail one at a time: two paid sessions of a new address create one key, not two
        await t.run(`SELECT pg_advisory_xact_lock(hashtext('purchase:' || lower($1)))`, [r.email]);
        if (await t.one('SELECT 1 FROM payments WHERE stripe_event_id = $1', [r.stripeEventId])) return { kind: 'duplicate', matched: 'event' };
        if (await t.one('SELECT 1 FROM payments WHERE stripe_session_id = $1', [r.stripeSessionId])) return { kind: 'duplicate', matched: 'session' };
        const existing = await t.one<{ id: number }>(`SELECT id FROM api_keys
          WHERE kind = 'live' AND revoked_at IS NULL AND lower(email) = lower($1) ORDER BY id DESC LIMIT 1 FOR UPDATE`, [r.email]);
        const keyId = existing ? existing.id : await this.insertKey(t, { kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: r.email, createdAt });
        const { ledgerId, balance } = await this.creditRow(t, keyId, r.stops, 'purchase', r.stripeSessionId, createdAt);
        const payment = await t.one<{ id: number }>(`INSERT INTO payments (stripe_event_id, stripe_session_id, email, pack_id, stops, amount_cents, currency,
            key_id, ledger_id, created_key, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
        [r.stripeEventId, r.stripeSessionId, r.email, r.packId, r.stops, r.amountCents, r.currency, keyId, ledgerId, !existing, createdAt]);
        const key = await this.keyById(t, keyId);
        const mail = r.composeMail({ createdKey: !existing, key, balance });
        const outboxId = await this.insertOutbox(t, mail, keyId, createdAt);
        return { kind: 'credited', createdKey: !existing, key, balance, paymentId: payment!.id, outboxId };
      });
    } catch (err) {
      // another instance recorded the same event or session between our check and our insert: our transaction rolled back whole
      if (!isUniqueViolation(err)) throw err;
      const { rows } = await this.q('SELECT 1 FROM payments WHERE stripe_event_id = $1', [r.stripeEventId]);
      return { kind: 'duplicate', matched: rows.length > 0 ? 'event' : 'session' };
    }
  }

  async replaceKey(r: ReplaceKeyRequest): Promise<ReplaceKeyOutcome> {
    const createdAt = r.now.toISOString();
    return this.tx(async (t): Promise<ReplaceKeyOutcome> => {
      // a purchase for the same e-mail waits for us (and then credits the new key): the purchases' lock, taken first as they do
      const email = (await t.one<{ email: string | null }>('SELECT email FROM api_keys WHERE id = $1', [r.oldKeyId]))?.email;
      if (email) await t.run(`SELECT pg_advisory_xact_lock(hashtext('purchase:' || lower($1)))`, [email]);
      // the row lock holds off debits of the old key until it is revoked: the balance moved is the final one
      const old = await t.one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [r.oldKeyId]);
      if (!old) throw new Error(`no key with id ${r.oldKeyId}`);
      if (old.kind !== 'live') throw new Error('only live keys can be replaced by e-mail');
      if (old.revoked_at) throw new Error('this key is revoked');
      if (!old.email) throw new Error('this key has no e-mail address');
      const newId = await this.insertKey(t, { kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: old.email, createdAt });
      const moved = old.balance;
      if (moved > 0) {
        // the ledger allows no other reason: a transfer is an admin adjustment, tagged in request_id
        const tag = `replace:${old.id}->${newId}`;
        await t.run('UPDATE api_keys SET balance = 0 WHERE id = $1', [old.id]);
        await this.insertLedger(t, { keyId: old.id, delta: -moved, reason: 'admin_credit', requestId: tag, refundOf: null, createdAt });
        await this.creditRow(t, newId, moved, 'admin_credit', tag, createdAt);
      }
      await t.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [createdAt, old.id]);
      // unsent mails about the old key would announce a dead key (and hold it in full): drop them
      await t.run(`UPDATE outbox SET cancelled_at = $1, body = '', last_error = $2
        WHERE key_id = $3 AND sent_at IS NULL AND cancelled_at IS NULL`, [createdAt, `cancelled: key replaced by key ${newId}`, old.id]);
      const oldKey = await this.keyById(t, old.id);
      const newKey = await this.keyById(t, newId);
      const outboxId = await this.insertOutbox(t, r.composeMail({ oldKey, newKey, balance: newKey.balance }), newId, createdAt);
      return { oldKey, newKey, moved, outboxId };
    });
  }

  async listPayments(): Promise<PaymentRecord[]> {
    const { rows } = await this.q<PaymentRow>('SELECT p.*, k.last4 FROM payments p JOIN api_keys k ON k.id = p.key_id ORDER BY p.id');
    return rows.map(toPayment);
  }

  async findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null> {
    const { rows } = await this.q<PaymentRow & { mail_sent_at: string | null }>(PAYMENT_BY_SESSION_SQL('$1'), [stripeSessionId]);
    return rows[0] ? toPaymentStatus(rows[0]) : null;
  }

  private async insertOutbox(t: Tx, message: NewOutboxMessage, keyId: number | null, now: string): Promise<number> {
    const row = await t.one<{ id: number }>(`INSERT INTO outbox (kind, to_address, subject, body, key_id, created_at, next_attempt_at)
      VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`, [message.kind, message.to, message.subject, message.body, keyId, now]);
    return row!.id;
  }

  async enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number> {
    return this.tx((t) => this.insertOutbox(t, message, keyId, now.toISOString()));
  }

  async dueMail(now: Date, limit: number): Promise<number[]> {
    const { rows } = await this.q<{ id: number }>(`SELECT id FROM outbox WHERE sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= $1
      ORDER BY id LIMIT $2`, [now.toISOString(), limit]);
    return rows.map((r) => r.id);
  }

  async claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null> {
    // the lease: one conditional UPDATE; a second sender (any instance) waits on the row lock, re-checks, and finds it taken
    const { rows } = await this.q<OutboxRow>(`UPDATE outbox SET next_attempt_at = $1
      WHERE id = $2 AND sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= $3 RETURNING *`, [leaseUntil.toISOString(), id, now.toISOString()]);
    return rows[0] ? toOutbox(rows[0]) : null;
  }

  async markMailSent(id: number, now: Date): Promise<void> {
    await this.q(`UPDATE outbox SET sent_at = $1, body = '', attempts = attempts + 1, last_error = NULL WHERE id = $2 AND sent_at IS NULL`, [now.toISOString(), id]);
  }

  async markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void> {
    await this.q('UPDATE outbox SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2 WHERE id = $3 AND sent_at IS NULL',
      [error.slice(0, 1000), nextAttemptAt.toISOString(), id]);
  }

  async rescheduleMail(now: Date): Promise<number> {
    return (await this.q('UPDATE outbox SET next_attempt_at = $1 WHERE sent_at IS NULL AND cancelled_at IS NULL', [now.toISOString()])).rowCount;
  }

  async listMail(): Promise<OutboxMessage[]> {
    return (await this.q<OutboxRow>('SELECT * FROM outbox ORDER BY id')).rows.map(toOutbox);
  }
}
