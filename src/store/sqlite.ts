/**
 * The embedded store: SQLite in WAL mode through better-sqlite3. This module
 * owns every SQL statement of the SQLite store.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { assetPath, sqliteNativeBinding } from '../assets.js';
import { ensurePrivateFile, tightenIfExists } from '../private-files.js';
import { readMigrations } from './migrate.js';
import type {
  ApiKeyRecord, ConsoleTestKeyOutcome, IntegrityReport, LeaseHolder, PendingMark, RecoveryReport, RecoveryRequest, SettleCharge, ConsoleTestKeyRequest, DebitOutcome, IdempotencyBegin, IdempotencyOutcome, LedgerEntry, NewKey, NewOutboxMessage, OutboxMessage, PaymentRecord, PaymentStatus,
  PurchaseOutcome, PurchaseRequest, RefundOutcome, ReplaceKeyOutcome, ReplaceKeyRequest, SandboxReservationOutcome,
  SandboxReservationRequest, SandboxUsage, SandboxWindow, Store, GeocodeCacheEntry,
} from './types.js';
import { ENDED_LEASE_RETENTION_MS, PAYMENT_BY_SESSION_SQL, holdsWhileGone, toKey, toLeaseStatus, toOutbox, toPayment, toPaymentStatus, type KeyRow, type LeaseRow, type OutboxRow, type PaymentRow } from './rows.js';

const MIGRATIONS_DIR = assetPath('migrations/sqlite');

/**
 * A pending charge (row `t`) whose call can no longer complete, as the sweeper `@self` sees it at `@nowMs`:
 * its owner's lease has ended, or it is past its deadline and its owner is the sweeper itself or an owner
 * without a lease row (written before leases existed). A live lease's charges are left to their owner.
 */
const GONE = (t: string) => `(EXISTS (SELECT 1 FROM instance_leases x WHERE x.instance_id = ${t}.owner AND x.ended_at_ms IS NOT NULL)
  OR (${t}.expires_at_ms <= @nowMs AND (${t}.owner = @self OR NOT EXISTS (SELECT 1 FROM instance_leases x WHERE x.instance_id = ${t}.owner))))`;
/** What `db check` counts as stale at `@nowMs`: past its deadline, or its owner's lease expired or ended. */
const STALE = (t: string) => `(${t}.expires_at_ms <= @nowMs OR EXISTS (SELECT 1 FROM instance_leases x
  WHERE x.instance_id = ${t}.owner AND (x.ended_at_ms IS NOT NULL OR x.expires_at_ms <= @nowMs)))`;
/** A sandbox reservation, a claim: which rows are pending. */
const RESERVED = `state = 'reserved'`;
const CLAIMED = `state = 'pending'`;

/** Thrown inside a transaction to roll it back when a charge can no longer be settled. */
class NotSettled extends Error {}


/**
 * SQLite's own busy handler sleeps on the thread that runs the statement, here the event loop's: it is off
 * (busy_timeout 0) once the store is open. A statement that meets another connection's lock fails at once
 * and is tried again after an asynchronous pause, as the busy handler would after a sleep, so a hundred calls
 * waiting on one lock cost the event loop nothing but their retries.
 */
export const SQLITE_SYNC_BUSY_WAIT_MS = 0;
/** Pauses between attempts: 1 ms doubling to this, with jitter so that waiting calls do not retry in step. */
const MAX_RETRY_PAUSE_MS = 50;
/** The readiness write probe gives up on a lock sooner than a call does. */
const PROBE_BUDGET_MS = 1_000;
/** Bytes the write probe writes: more pages than one paid call writes, so a probe that passes means a call can. */
export const WRITE_PROBE_BYTES = 32 * 1024;

const isBusy = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The SQLite error code of a violated UNIQUE constraint. */
const isUniqueViolation = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';

export interface SqliteStoreOptions {
  /**
   * How long, in total, a statement waits for another connection's lock before failing with SQLITE_BUSY
   * (503 storage_unavailable). The wait never blocks the event loop: see SQLITE_SYNC_BUSY_WAIT_MS.
   */
  busyTimeoutMs?: number;
}

export function applySqliteMigrations(db: Database.Database): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const done: number[] = [];
  for (const migration of readMigrations(MIGRATIONS_DIR)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
        .run(migration.version, migration.name, new Date().toISOString());
    }).immediate();
    done.push(migration.version);
  }
  return done;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly db: Database.Database;
  private readonly stmt;
  private readonly busyTimeoutMs: number;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // SQLite gives the -wal and -shm files the database file's mode: create it 0600 first (and tighten older ones)
      ensurePrivateFile(path);
      tightenIfExists(`${path}-wal`);
      tightenIfExists(`${path}-shm`);
    }
    // the single executable passes its embedded addon (better-sqlite3 accepts the loaded object; its types list only a path)
    this.db = new Database(path, { timeout: this.busyTimeoutMs, nativeBinding: sqliteNativeBinding() as Database.Options['nativeBinding'] });
    // opening and migrating happen once, before the service listens: they may wait for a lock the whole budget
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('synchronous = NORMAL');
    applySqliteMigrations(this.db);
    this.db.pragma(`busy_timeout = ${Math.min(SQLITE_SYNC_BUSY_WAIT_MS, this.busyTimeoutMs)}`);
    const db = this.db;
    this.stmt = {
      insertKey: db.prepare(`INSERT INTO api_keys (kind, key_hash, last4, email, balance, created_at)
        VALUES (@kind, @keyHash, @last4, @email, 0, @createdAt)`),
      keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      keyByHash: db.prepare('SELECT * FROM api_keys WHERE key_hash = ?'),
      keysByLast4: db.prepare('SELECT * FROM api_keys WHERE last4 = ? ORDER BY id'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'),
      listKeys: db.prepare('SELECT * FROM api_keys ORDER BY id'),
      addBalance: db.prepare('UPDATE api_keys SET balance = balance + ? WHERE id = ?'),
      conditionalDebit: db.prepare(`UPDATE api_keys SET balance = balance - @stops
        WHERE id = @keyId AND kind = 'live' AND revoked_at IS NULL AND balance >= @stops`),
      balance: db.prepare('SELECT balance FROM api_keys WHERE id = ?').pluck(),
      insertLedger: db.prepare(`INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
        VALUES (@keyId, @delta, @reason, @requestId, @clientRequestId, @refundOf, @createdAt)`),
      ledgerById: db.prepare('SELECT * FROM ledger WHERE id = ?'),
      ledgerByKey: db.prepare('SELECT * FROM ledger WHERE key_id = ? ORDER BY id'),
      refundOf: db.prepare('SELECT id FROM ledger WHERE refund_of = ?').pluck(),
      // no upper bound: a call stamped a few ms later by another process's clock still counts
      sandboxCalls: db.prepare(`SELECT COUNT(*) AS calls, MIN(at_ms) AS oldest FROM sandbox_calls
        WHERE key_id = ? AND at_ms >= ?`),
      sandboxStops: db.prepare(`SELECT COALESCE(SUM(stops), 0) FROM sandbox_calls
        WHERE key_id = ? AND paris_day = ? AND state != 'released'`).pluck(),
      insertSandbox: db.prepare(`INSERT INTO sandbox_calls (key_id, request_id, at_ms, paris_day, stops, state, expires_at_ms, owner)
        VALUES (@keyId, @requestId, @nowMs, @day, @stops, 'reserved', @untilMs, @owner)`),
      setSandboxState: db.prepare(`UPDATE sandbox_calls SET state = ? WHERE id = ? AND state = 'reserved'`),
      pruneSandbox: db.prepare('DELETE FROM sandbox_calls WHERE key_id = ? AND at_ms < ?'),
      idempotencyGet: db.prepare('SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      idempotencyDelete: db.prepare('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      idempotencyPrune: db.prepare('DELETE FROM idempotency_keys WHERE created_at_ms < ?'),
      idempotencyInsert: db.prepare(`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, state, created_at_ms, expires_at_ms, owner)
        VALUES (@keyId, @idempotencyKey, @requestHash, 'pending', @nowMs, @untilMs, @owner)`),
      insertPending: db.prepare('INSERT INTO pending_debits (debit_id, expires_at_ms, owner) VALUES (?, ?, ?)'),
      deletePending: db.prepare('DELETE FROM pending_debits WHERE debit_id = ?'),
      insertLease: db.prepare(`INSERT INTO instance_leases (instance_id, host, pid, port, started_at_ms, heartbeat_at_ms, expires_at_ms)
        VALUES (@instanceId, @host, @pid, @port, @nowMs, @nowMs, @untilMs)`),
      // an ended lease is never renewed: its charges may already have been given back
      renewLease: db.prepare(`UPDATE instance_leases SET heartbeat_at_ms = @nowMs, expires_at_ms = @untilMs
        WHERE instance_id = @self AND ended_at_ms IS NULL`),
      endExpiredLeases: db.prepare(`UPDATE instance_leases SET ended_at_ms = @nowMs, end_reason = 'settled', ended_by = @self
        WHERE ended_at_ms IS NULL AND expires_at_ms <= @nowMs
        RETURNING instance_id AS instanceId, host, pid, port, heartbeat_at_ms AS heartbeatAtMs`),
      releaseLease: db.prepare(`UPDATE instance_leases SET ended_at_ms = @nowMs, end_reason = 'released', ended_by = @self
        WHERE instance_id = @self AND ended_at_ms IS NULL`),
      pruneLeases: db.prepare('DELETE FROM instance_leases WHERE ended_at_ms IS NOT NULL AND ended_at_ms < ?'),
      gonePending: db.prepare(`SELECT p.debit_id AS debitId, l.key_id AS keyId, -l.delta AS stops, l.request_id AS requestId, l.client_request_id AS clientRequestId, p.owner AS owner
        FROM pending_debits p JOIN ledger l ON l.id = p.debit_id WHERE ${GONE('p')} ORDER BY p.debit_id`),
      releaseGoneSandbox: db.prepare(`UPDATE sandbox_calls SET state = 'released' WHERE ${RESERVED} AND ${GONE('sandbox_calls')}`),
      releaseGoneClaims: db.prepare(`DELETE FROM idempotency_keys WHERE ${CLAIMED} AND ${GONE('idempotency_keys')}`),
      ownPending: db.prepare(`SELECT p.debit_id AS debitId, l.key_id AS keyId, -l.delta AS stops, l.request_id AS requestId, l.client_request_id AS clientRequestId, p.owner AS owner
        FROM pending_debits p JOIN ledger l ON l.id = p.debit_id WHERE p.owner = @self ORDER BY p.debit_id`),
      releaseOwnSandbox: db.prepare(`UPDATE sandbox_calls SET state = 'released' WHERE ${RESERVED} AND owner = @self`),
      releaseOwnClaims: db.prepare(`DELETE FROM idempotency_keys WHERE ${CLAIMED} AND owner = @self`),
      countStalePending: db.prepare(`SELECT COUNT(*) FROM pending_debits p WHERE ${STALE('p')}`).pluck(),
      countStaleSandbox: db.prepare(`SELECT COUNT(*) FROM sandbox_calls s WHERE s.${RESERVED} AND ${STALE('s')}`).pluck(),
      leaseStatuses: db.prepare(`SELECT * FROM (SELECT x.*,
          (SELECT COUNT(*) FROM pending_debits p WHERE p.owner = x.instance_id) AS pending_debits,
          (SELECT COALESCE(SUM(-l.delta), 0) FROM pending_debits p JOIN ledger l ON l.id = p.debit_id WHERE p.owner = x.instance_id) AS pending_stops,
          (SELECT COUNT(*) FROM sandbox_calls s WHERE s.${RESERVED} AND s.owner = x.instance_id) AS sandbox_reservations,
          (SELECT COUNT(*) FROM idempotency_keys i WHERE i.${CLAIMED} AND i.owner = x.instance_id) AS idempotency_claims
        FROM instance_leases x)
        WHERE ended_at_ms IS NULL OR pending_debits + sandbox_reservations + idempotency_claims > 0
        ORDER BY started_at_ms, instance_id`),
      // a claim whose call died: past its deadline, or its owner's lease has ended
      claimIsDead: db.prepare(`SELECT 1 FROM idempotency_keys k WHERE k.key_id = @keyId AND k.idempotency_key = @idempotencyKey AND k.${CLAIMED}
        AND (k.expires_at_ms <= @nowMs OR EXISTS (SELECT 1 FROM instance_leases x WHERE x.instance_id = k.owner AND x.ended_at_ms IS NOT NULL))`).pluck(),
      balanceMismatches: db.prepare(`SELECT k.id AS keyId, k.balance AS balance, COALESCE(SUM(l.delta), 0) AS ledgerSum
        FROM api_keys k LEFT JOIN ledger l ON l.key_id = k.id GROUP BY k.id HAVING k.balance != COALESCE(SUM(l.delta), 0)`),
      countKeys: db.prepare('SELECT COUNT(*) FROM api_keys').pluck(),
      idempotencyComplete: db.prepare(`UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
        WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`),
      idempotencyAbandon: db.prepare(`DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`),
      geocodeGet: db.prepare('SELECT result, precision, engine FROM geocode_cache WHERE cache_key = ?'),
      geocodePut: db.prepare(`INSERT INTO geocode_cache (cache_key, result, precision, engine, created_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (cache_key) DO UPDATE SET result = excluded.result, precision = excluded.precision, engine = excluded.engine,
        created_at = excluded.created_at`),
      consoleRequestsByIp: db.prepare(`SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests
        WHERE client_ip = ? AND at_ms >= ?`),
      consoleRequestsByEmail: db.prepare(`SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests
        WHERE email = ? AND at_ms >= ?`),
      insertConsoleRequest: db.prepare(`INSERT INTO console_key_requests (key_id, client_ip, email, at_ms)
        VALUES (@keyId, @clientIp, @email, @nowMs)`),
      ping: db.prepare('SELECT 1').pluck(),
      writeProbe: db.prepare(`INSERT INTO write_probe (id, at, payload) VALUES (1, @at, @payload)
        ON CONFLICT (id) DO UPDATE SET at = excluded.at, payload = excluded.payload`),
      paymentByEvent: db.prepare('SELECT id FROM payments WHERE stripe_event_id = ?').pluck(),
      paymentBySession: db.prepare('SELECT id FROM payments WHERE stripe_session_id = ?').pluck(),
      activeLiveKeyByEmail: db.prepare(`SELECT * FROM api_keys
        WHERE kind = 'live' AND revoked_at IS NULL AND email = ? COLLATE NOCASE ORDER BY id DESC LIMIT 1`),
      insertPayment: db.prepare(`INSERT INTO payments (stripe_event_id, stripe_session_id, email, pack_id, stops, amount_cents, currency,
          key_id, ledger_id, created_key, created_at)
        VALUES (@stripeEventId, @stripeSessionId, @email, @packId, @stops, @amountCents, @currency, @keyId, @ledgerId, @createdKey, @createdAt)`),
      listPayments: db.prepare(`SELECT p.*, k.last4 FROM payments p JOIN api_keys k ON k.id = p.key_id ORDER BY p.id`),
      paymentStatusBySession: db.prepare(PAYMENT_BY_SESSION_SQL('?')),
      setBalance: db.prepare('UPDATE api_keys SET balance = ? WHERE id = ?'),
      revokeKeyById: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      insertOutbox: db.prepare(`INSERT INTO outbox (kind, to_address, subject, body, key_id, created_at, next_attempt_at)
        VALUES (@kind, @to, @subject, @body, @keyId, @now, @now)`),
      outboxDue: db.prepare(`SELECT id FROM outbox WHERE sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= ?
        ORDER BY id LIMIT ?`).pluck(),
      outboxClaim: db.prepare(`UPDATE outbox SET next_attempt_at = ?
        WHERE id = ? AND sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= ?`),
      outboxCancelForKey: db.prepare(`UPDATE outbox SET cancelled_at = ?, body = '', last_error = ?
        WHERE key_id = ? AND sent_at IS NULL AND cancelled_at IS NULL`),
      outboxById: db.prepare('SELECT * FROM outbox WHERE id = ?'),
      outboxSent: db.prepare(`UPDATE outbox SET sent_at = ?, body = '', attempts = attempts + 1, last_error = NULL WHERE id = ? AND sent_at IS NULL`),
      outboxFailed: db.prepare('UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ? AND sent_at IS NULL'),
      outboxReschedule: db.prepare('UPDATE outbox SET next_attempt_at = ? WHERE sent_at IS NULL AND cancelled_at IS NULL'),
      outboxList: db.prepare('SELECT * FROM outbox ORDER BY id'),
    };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs `op` (one statement or one transaction); while another connection holds the lock (SQLITE_BUSY) it is
   * tried again after a pause that gives the event loop back, until `budgetMs` has passed, then the error is thrown
   * (503 storage_unavailable). A failed attempt changed nothing: its transaction was rolled back whole.
   */
  private async attempt<T>(op: () => T, budgetMs = this.busyTimeoutMs): Promise<T> {
    const started = performance.now();
    for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, MAX_RETRY_PAUSE_MS)) {
      try {
        return op();
      } catch (err) {
        if (!isBusy(err) || performance.now() - started + pauseMs >= budgetMs) throw err;
      }
      await pause(pauseMs * (0.75 + Math.random() / 2));
    }
  }

  async createKey(key: NewKey): Promise<ApiKeyRecord> {
    const createdAt = key.now.toISOString();
    // the read inside the transaction: a retried attempt is always one that committed nothing
    return this.attempt(() => this.db.transaction(() => {
      const keyId = Number(this.stmt.insertKey.run({ ...key, createdAt }).lastInsertRowid);
      if (key.initialStops > 0) this.creditInTransaction(keyId, key.initialStops, key.reason, null, createdAt);
      return toKey(this.stmt.keyById.get(keyId) as KeyRow);
    }).immediate());
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.attempt(() => this.stmt.keyByHash.get(keyHash) as KeyRow | undefined);
    return row ? toKey(row) : null;
  }

  async findKeyByLast4(last4: string): Promise<ApiKeyRecord[]> {
    return this.attempt(() => (this.stmt.keysByLast4.all(last4) as KeyRow[]).map(toKey));
  }

  async revokeKey(keyHash: string, now: Date): Promise<boolean> {
    return this.attempt(() => this.stmt.revokeKey.run(now.toISOString(), keyHash).changes === 1);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return this.attempt(() => (this.stmt.listKeys.all() as KeyRow[]).map(toKey));
  }

  async credit(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, now: Date): Promise<number> {
    return this.attempt(() => this.db.transaction(() => this.creditInTransaction(keyId, stops, reason, requestId, now.toISOString())).immediate());
  }

  private creditInTransaction(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, createdAt: string): number {
    return this.creditRow(keyId, stops, reason, requestId, createdAt).balance;
  }

  private creditRow(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, createdAt: string): { ledgerId: number; balance: number } {
    if (!Number.isSafeInteger(stops) || stops <= 0) throw new RangeError('credit needs a positive whole number of stops');
    const key = this.stmt.keyById.get(keyId) as KeyRow | undefined;
    if (!key) throw new Error(`no key with id ${keyId}`);
    if (key.kind !== 'live') throw new Error('only live keys hold a balance');
    this.stmt.addBalance.run(stops, keyId);
    const ledgerId = Number(this.stmt.insertLedger.run({ keyId, delta: stops, reason, requestId, clientRequestId: null, refundOf: null, createdAt }).lastInsertRowid);
    return { ledgerId, balance: this.stmt.balance.get(keyId) as number };
  }

  async debit(keyId: number, stops: number, requestId: string, now: Date, pending: PendingMark, clientRequestId: string | null = null): Promise<DebitOutcome> {
    return this.attempt(() => this.db.transaction((): DebitOutcome => {
      const changed = this.stmt.conditionalDebit.run({ keyId, stops }).changes;
      if (changed !== 1) return { ok: false, balance: (this.stmt.balance.get(keyId) as number | undefined) ?? 0 };
      const debitId = Number(this.stmt.insertLedger.run({
        keyId, delta: -stops, reason: 'debit', requestId, clientRequestId, refundOf: null, createdAt: now.toISOString(),
      }).lastInsertRowid);
      this.stmt.insertPending.run(debitId, pending.untilMs, pending.owner);
      return { ok: true, debitId, balance: this.stmt.balance.get(keyId) as number };
    }).immediate());
  }

  async refund(debitId: number, now: Date): Promise<RefundOutcome> {
    return this.attempt(() => this.db.transaction((): RefundOutcome => {
      const debit = this.stmt.ledgerById.get(debitId) as
        { key_id: number; delta: number; reason: string; request_id: string | null; client_request_id: string | null } | undefined;
      if (!debit || debit.reason !== 'debit') throw new Error(`ledger entry ${debitId} is not a debit`);
      if (this.stmt.refundOf.get(debitId) !== undefined) {
        return { refunded: false, balance: this.stmt.balance.get(debit.key_id) as number };
      }
      this.stmt.deletePending.run(debitId);
      this.stmt.addBalance.run(-debit.delta, debit.key_id);
      this.stmt.insertLedger.run({
        keyId: debit.key_id, delta: -debit.delta, reason: 'refund', requestId: debit.request_id, clientRequestId: debit.client_request_id,
        refundOf: debitId, createdAt: now.toISOString(),
      });
      return { refunded: true, balance: this.stmt.balance.get(debit.key_id) as number };
    }).immediate());
  }

  async ledger(keyId: number): Promise<LedgerEntry[]> {
    const rows = await this.attempt(() => this.stmt.ledgerByKey.all(keyId) as Array<{
      id: number; key_id: number; delta: number; reason: LedgerEntry['reason']; request_id: string | null; client_request_id: string | null;
      refund_of: number | null; created_at: string;
    }>);
    return rows.map((r) => ({
      id: r.id, keyId: r.key_id, delta: r.delta, reason: r.reason, requestId: r.request_id, clientRequestId: r.client_request_id,
      refundOf: r.refund_of, createdAt: r.created_at,
    }));
  }

  async sandboxUsage(window: SandboxWindow): Promise<SandboxUsage> {
    return this.attempt(() => this.readSandboxUsage(window));
  }

  private readSandboxUsage(w: SandboxWindow): SandboxUsage {
    const calls = this.stmt.sandboxCalls.get(w.keyId, w.windowStartMs) as { calls: number; oldest: number | null };
    return { callsInWindow: calls.calls, oldestCallMs: calls.oldest, stopsToday: this.stmt.sandboxStops.get(w.keyId, w.day) as number };
  }

  async reserveSandbox(r: SandboxReservationRequest): Promise<SandboxReservationOutcome> {
    return this.attempt(() => this.db.transaction((): SandboxReservationOutcome => {
      // rows older than two days can never count again
      this.stmt.pruneSandbox.run(r.keyId, r.nowMs - 2 * 86_400_000);
      const usage = this.readSandboxUsage(r);
      if (usage.callsInWindow >= r.callsPerMinute) return { ok: false, exceeded: 'minute', usage };
      if (usage.stopsToday + r.stops > r.stopsPerDay) return { ok: false, exceeded: 'day', usage };
      const reservationId = Number(this.stmt.insertSandbox.run({
        keyId: r.keyId, requestId: r.requestId, nowMs: r.nowMs, day: r.day, stops: r.stops, untilMs: r.pending.untilMs, owner: r.pending.owner,
      }).lastInsertRowid);
      return { ok: true, reservationId, usage: this.readSandboxUsage(r) };
    }).immediate());
  }

  async releaseSandbox(reservationId: number): Promise<void> {
    await this.attempt(() => this.stmt.setSandboxState.run('released', reservationId));
  }

  async settleCharge(c: SettleCharge): Promise<boolean> {
    // all or nothing: a debit settled while its Idempotency-Key claim was taken over would charge a call that answers 502
    try {
      await this.attempt(() => this.db.transaction((): void => {
        if (c.debitId !== undefined && this.stmt.deletePending.run(c.debitId).changes !== 1) throw new NotSettled();
        if (c.sandboxReservationId !== undefined && this.stmt.setSandboxState.run('consumed', c.sandboxReservationId).changes !== 1) throw new NotSettled();
        if (c.idempotency) {
          const i = c.idempotency;
          if (this.stmt.idempotencyComplete.run(i.status, i.body, i.keyId, i.idempotencyKey).changes !== 1) throw new NotSettled();
        }
      }).immediate());
      return true;
    } catch (err) {
      if (err instanceof NotSettled) return false;
      throw err;
    }
  }

  async acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void> {
    await this.attempt(() => this.stmt.insertLease.run({ ...holder, nowMs: now.getTime(), untilMs }));
  }

  async recoverCharges(r: RecoveryRequest): Promise<RecoveryReport> {
    return this.attempt(() => this.db.transaction((): RecoveryReport => {
      const nowMs = r.now.getTime();
      const who = { nowMs, self: r.by };
      const renewed = r.renewUntilMs === undefined ? undefined : this.stmt.renewLease.run({ ...who, untilMs: r.renewUntilMs }).changes === 1;
      const ended = this.stmt.endExpiredLeases.all(who) as Array<LeaseHolder & { heartbeatAtMs: number }>;
      const refunded = this.giveBack(this.stmt.gonePending.all(who) as Parameters<SqliteStore['giveBack']>[0], r.now);
      const releasedSandbox = this.stmt.releaseGoneSandbox.run(who).changes;
      const releasedIdempotencyClaims = this.stmt.releaseGoneClaims.run(who).changes;
      this.stmt.pruneLeases.run(nowMs - ENDED_LEASE_RETENTION_MS);
      return {
        refunded, releasedSandbox, releasedIdempotencyClaims, ...(renewed === undefined ? {} : { renewed }),
        settledLeases: ended.map(({ heartbeatAtMs, ...holder }) => ({ ...holder, heartbeatAt: new Date(heartbeatAtMs).toISOString() })),
      };
    }).immediate());
  }

  async releaseLease(instanceId: string, now: Date): Promise<RecoveryReport> {
    return this.attempt(() => this.db.transaction((): RecoveryReport => {
      const who = { nowMs: now.getTime(), self: instanceId };
      this.stmt.releaseLease.run(who);
      const refunded = this.giveBack(this.stmt.ownPending.all(who) as Parameters<SqliteStore['giveBack']>[0], now);
      return {
        refunded, settledLeases: [],
        releasedSandbox: this.stmt.releaseOwnSandbox.run(who).changes,
        releasedIdempotencyClaims: this.stmt.releaseOwnClaims.run(who).changes,
      };
    }).immediate());
  }

  /** Refunds pending debits (inside a transaction); a debit already refunded is only unmarked. */
  private giveBack(pending: Array<RecoveryReport['refunded'][number] & { clientRequestId: string | null }>, now: Date): RecoveryReport['refunded'] {
    const createdAt = now.toISOString();
    return pending.filter((e) => {
      this.stmt.deletePending.run(e.debitId);
      if (this.stmt.refundOf.get(e.debitId) !== undefined) return false;
      this.stmt.addBalance.run(e.stops, e.keyId);
      this.stmt.insertLedger.run({
        keyId: e.keyId, delta: e.stops, reason: 'refund', requestId: e.requestId, clientRequestId: e.clientRequestId, refundOf: e.debitId, createdAt,
      });
      return true;
    }).map(({ clientRequestId: _, ...refund }) => refund);
  }

  async checkIntegrity(now: Date): Promise<IntegrityReport> {
    return this.attempt(() => this.db.transaction((): IntegrityReport => {
      const nowMs = now.getTime();
      const mismatches = this.stmt.balanceMismatches.all() as IntegrityReport['mismatches'];
      const expiredPendingDebits = this.stmt.countStalePending.get({ nowMs }) as number;
      const expiredSandboxReservations = this.stmt.countStaleSandbox.get({ nowMs }) as number;
      const leases = (this.stmt.leaseStatuses.all() as LeaseRow[]).map((row) => toLeaseStatus(row, nowMs));
      return {
        keysChecked: this.stmt.countKeys.get() as number, mismatches, expiredPendingDebits, expiredSandboxReservations, leases,
        ok: mismatches.length === 0 && expiredPendingDebits === 0 && expiredSandboxReservations === 0 && !leases.some(holdsWhileGone),
      };
    })());
  }

  async beginIdempotent(r: IdempotencyBegin): Promise<IdempotencyOutcome> {
    return this.attempt(() => this.db.transaction((): IdempotencyOutcome => {
      this.stmt.idempotencyPrune.run(r.expiredBeforeMs);
      let row = this.stmt.idempotencyGet.get(r.keyId, r.idempotencyKey) as
        { request_hash: string; state: 'pending' | 'done'; response_status: number | null; response_body: string | null; expires_at_ms: number | null } | undefined;
      if (row && row.state === 'pending' && this.stmt.claimIsDead.get({ keyId: r.keyId, idempotencyKey: r.idempotencyKey, nowMs: r.nowMs }) !== undefined) {
        this.stmt.idempotencyDelete.run(r.keyId, r.idempotencyKey); // its call died; its charge is (or will be) given back
        row = undefined;
      }
      if (!row) {
        this.stmt.idempotencyInsert.run({
          keyId: r.keyId, idempotencyKey: r.idempotencyKey, requestHash: r.requestHash, nowMs: r.nowMs, untilMs: r.pending.untilMs, owner: r.pending.owner,
        });
        return { kind: 'started' };
      }
      if (row.request_hash !== r.requestHash) return { kind: 'conflict' };
      if (row.state === 'pending') return { kind: 'in_progress' };
      return { kind: 'replay', status: row.response_status ?? 200, body: row.response_body ?? 'null' };
    }).immediate());
  }

  async abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void> {
    await this.attempt(() => this.stmt.idempotencyAbandon.run(keyId, idempotencyKey));
  }

  async getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined> {
    const row = await this.attempt(() => this.stmt.geocodeGet.get(cacheKey) as GeocodeCacheEntry | undefined);
    return row === undefined ? undefined : { result: row.result, precision: row.precision, engine: row.engine };
  }

  async putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void> {
    await this.attempt(() => this.stmt.geocodePut.run(cacheKey, entry.result, entry.precision, entry.engine, now.toISOString()));
  }

  async issueConsoleTestKey(r: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome> {
    return this.attempt(() => this.db.transaction((): ConsoleTestKeyOutcome => {
      const byIp = this.stmt.consoleRequestsByIp.get(r.clientIp, r.sinceMs) as { n: number; oldest: number | null };
      if (byIp.n >= r.maxPerIp) return { ok: false, exceeded: 'ip', oldestMs: byIp.oldest ?? r.nowMs };
      const byEmail = this.stmt.consoleRequestsByEmail.get(r.email, r.sinceMs) as { n: number; oldest: number | null };
      if (byEmail.n >= r.maxPerEmail) return { ok: false, exceeded: 'email', oldestMs: byEmail.oldest ?? r.nowMs };
      const keyId = Number(this.stmt.insertKey.run({
        kind: 'test', keyHash: r.keyHash, last4: r.last4, email: r.email, createdAt: new Date(r.nowMs).toISOString(),
      }).lastInsertRowid);
      this.stmt.insertConsoleRequest.run({ keyId, clientIp: r.clientIp, email: r.email, nowMs: r.nowMs });
      return { ok: true, record: toKey(this.stmt.keyById.get(keyId) as KeyRow) };
    }).immediate());
  }

  async backup(destination: string): Promise<void> {
    mkdirSync(dirname(destination), { recursive: true });
    // the copy holds what the database holds: 0600 before SQLite writes into it
    ensurePrivateFile(destination);
    await this.db.backup(destination);
  }

  async probeWrite(now: Date): Promise<void> {
    await this.attempt(() => this.stmt.writeProbe.run({ at: now.toISOString(), payload: randomBytes(WRITE_PROBE_BYTES) }), Math.min(PROBE_BUDGET_MS, this.busyTimeoutMs));
  }

  async ping(): Promise<void> {
    await this.attempt(() => this.stmt.ping.get());
  }

  async recordPurchase(r: PurchaseRequest): Promise<PurchaseOutcome> {
    const createdAt = r.now.toISOString();
    const run = this.db.transaction((): PurchaseOutcome => {
      if (this.stmt.paymentByEvent.get(r.stripeEventId) !== undefined) return { kind: 'duplicate', matched: 'event' };
      if (this.stmt.paymentBySession.get(r.stripeSessionId) !== undefined) return { kind: 'duplicate', matched: 'session' };
      const existing = this.stmt.activeLiveKeyByEmail.get(r.email) as KeyRow | undefined;
      const keyId = existing ? existing.id : Number(this.stmt.insertKey.run({
        kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: r.email, createdAt,
      }).lastInsertRowid);
      const { ledgerId, balance } = this.creditRow(keyId, r.stops, 'purchase', r.stripeSessionId, createdAt);
      const paymentId = Number(this.stmt.insertPayment.run({
        stripeEventId: r.stripeEventId, stripeSessionId: r.stripeSessionId, email: r.email, packId: r.packId, stops: r.stops,
        amountCents: r.amountCents, currency: r.currency, keyId, ledgerId, createdKey: existing ? 0 : 1, createdAt,
      }).lastInsertRowid);
      const key = toKey(this.stmt.keyById.get(keyId) as KeyRow);
      const mail = r.composeMail({ createdKey: !existing, key, balance });
      const outboxId = this.insertOutbox(mail, keyId, createdAt);
      return { kind: 'credited', createdKey: !existing, key, balance, paymentId, outboxId };
    });
    try {
      return await this.attempt(() => run.immediate());
    } catch (err) {
      // another connection recorded the same event or session between our check and our insert
      if (!isUniqueViolation(err)) throw err;
      return { kind: 'duplicate', matched: await this.attempt(() => this.stmt.paymentByEvent.get(r.stripeEventId)) !== undefined ? 'event' : 'session' };
    }
  }

  async replaceKey(r: ReplaceKeyRequest): Promise<ReplaceKeyOutcome> {
    const createdAt = r.now.toISOString();
    return this.attempt(() => this.db.transaction((): ReplaceKeyOutcome => {
      const old = this.stmt.keyById.get(r.oldKeyId) as KeyRow | undefined;
      if (!old) throw new Error(`no key with id ${r.oldKeyId}`);
      if (old.kind !== 'live') throw new Error('only live keys can be replaced by e-mail');
      if (old.revoked_at) throw new Error('this key is revoked');
      if (!old.email) throw new Error('this key has no e-mail address');
      const newId = Number(this.stmt.insertKey.run({
        kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: old.email, createdAt,
      }).lastInsertRowid);
      const moved = old.balance;
      if (moved > 0) {
        // the ledger allows no other reason: a transfer is an admin adjustment, tagged in request_id
        const tag = `replace:${old.id}->${newId}`;
        this.stmt.setBalance.run(0, old.id);
        this.stmt.insertLedger.run({ keyId: old.id, delta: -moved, reason: 'admin_credit', requestId: tag, clientRequestId: null, refundOf: null, createdAt });
        this.creditRow(newId, moved, 'admin_credit', tag, createdAt);
      }
      this.stmt.revokeKeyById.run(createdAt, old.id);
      // unsent mails about the old key would announce a dead key (and hold it in full): drop them
      this.stmt.outboxCancelForKey.run(createdAt, `cancelled: key replaced by key ${newId}`, old.id);
      const oldKey = toKey(this.stmt.keyById.get(old.id) as KeyRow);
      const newKey = toKey(this.stmt.keyById.get(newId) as KeyRow);
      const outboxId = this.insertOutbox(r.composeMail({ oldKey, newKey, balance: newKey.balance }), newId, createdAt);
      return { oldKey, newKey, moved, outboxId };
    }).immediate());
  }

  async listPayments(): Promise<PaymentRecord[]> {
    return this.attempt(() => (this.stmt.listPayments.all() as PaymentRow[]).map(toPayment));
  }

  async findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null> {
    const row = this.stmt.paymentStatusBySession.get(stripeSessionId) as (PaymentRow & { mail_sent_at: string | null }) | undefined;
    return row ? toPaymentStatus(row) : null;
  }

  private insertOutbox(message: NewOutboxMessage, keyId: number | null, now: string): number {
    return Number(this.stmt.insertOutbox.run({
      kind: message.kind, to: message.to, subject: message.subject, body: message.body, keyId, now,
    }).lastInsertRowid);
  }

  async enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number> {
    return this.attempt(() => this.insertOutbox(message, keyId, now.toISOString()));
  }

  async dueMail(now: Date, limit: number): Promise<number[]> {
    return this.attempt(() => this.stmt.outboxDue.all(now.toISOString(), limit) as number[]);
  }

  async claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null> {
    return this.attempt(() => this.db.transaction((): OutboxMessage | null => {
      if (this.stmt.outboxClaim.run(leaseUntil.toISOString(), id, now.toISOString()).changes !== 1) return null;
      return toOutbox(this.stmt.outboxById.get(id) as OutboxRow);
    }).immediate());
  }

  async markMailSent(id: number, now: Date): Promise<void> {
    await this.attempt(() => this.stmt.outboxSent.run(now.toISOString(), id));
  }

  async markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void> {
    await this.attempt(() => this.stmt.outboxFailed.run(error.slice(0, 1000), nextAttemptAt.toISOString(), id));
  }

  async rescheduleMail(now: Date): Promise<number> {
    return this.attempt(() => this.stmt.outboxReschedule.run(now.toISOString()).changes);
  }

  async listMail(): Promise<OutboxMessage[]> {
    return this.attempt(() => (this.stmt.outboxList.all() as OutboxRow[]).map(toOutbox));
  }
}
