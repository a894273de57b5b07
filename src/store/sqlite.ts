/**
 * The embedded store: SQLite in WAL mode through better-sqlite3. This module
 * owns every SQL statement of the SQLite store.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { readMigrations } from './migrate.js';
import type {
  ApiKeyRecord, DebitOutcome, IdempotencyBegin, IdempotencyOutcome, LedgerEntry, NewKey, RefundOutcome, SandboxReservationOutcome,
  SandboxReservationRequest, SandboxUsage, SandboxWindow, Store,
} from './types.js';

const MIGRATIONS_DIR = new URL('./migrations/sqlite/', import.meta.url).pathname;

interface KeyRow {
  id: number; kind: 'test' | 'live'; last4: string; email: string | null; balance: number; created_at: string; revoked_at: string | null;
}

const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id, kind: row.kind, last4: row.last4, email: row.email, balance: row.balance, createdAt: row.created_at, revokedAt: row.revoked_at,
});

export interface SqliteStoreOptions {
  /** How long a writer waits for another connection's lock before SQLITE_BUSY. */
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

  constructor(path: string, options: SqliteStoreOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('synchronous = NORMAL');
    applySqliteMigrations(this.db);
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
      insertLedger: db.prepare(`INSERT INTO ledger (key_id, delta, reason, request_id, refund_of, created_at)
        VALUES (@keyId, @delta, @reason, @requestId, @refundOf, @createdAt)`),
      ledgerById: db.prepare('SELECT * FROM ledger WHERE id = ?'),
      ledgerByKey: db.prepare('SELECT * FROM ledger WHERE key_id = ? ORDER BY id'),
      refundOf: db.prepare('SELECT id FROM ledger WHERE refund_of = ?').pluck(),
      sandboxCalls: db.prepare(`SELECT COUNT(*) AS calls, MIN(at_ms) AS oldest FROM sandbox_calls
        WHERE key_id = ? AND at_ms >= ? AND at_ms <= ?`),
      sandboxStops: db.prepare(`SELECT COALESCE(SUM(stops), 0) FROM sandbox_calls
        WHERE key_id = ? AND paris_day = ? AND state != 'released'`).pluck(),
      insertSandbox: db.prepare(`INSERT INTO sandbox_calls (key_id, request_id, at_ms, paris_day, stops, state)
        VALUES (@keyId, @requestId, @nowMs, @day, @stops, 'reserved')`),
      setSandboxState: db.prepare(`UPDATE sandbox_calls SET state = ? WHERE id = ? AND state = 'reserved'`),
      pruneSandbox: db.prepare('DELETE FROM sandbox_calls WHERE key_id = ? AND at_ms < ?'),
      idempotencyGet: db.prepare('SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      idempotencyDelete: db.prepare('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      idempotencyPrune: db.prepare('DELETE FROM idempotency_keys WHERE created_at_ms < ?'),
      idempotencyInsert: db.prepare(`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, state, created_at_ms)
        VALUES (@keyId, @idempotencyKey, @requestHash, 'pending', @nowMs)`),
      idempotencyComplete: db.prepare(`UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
        WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`),
      idempotencyAbandon: db.prepare(`DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`),
      geocodeGet: db.prepare('SELECT result FROM geocode_cache WHERE cache_key = ?').pluck(),
      geocodePut: db.prepare(`INSERT INTO geocode_cache (cache_key, result, created_at) VALUES (?, ?, ?)
        ON CONFLICT (cache_key) DO UPDATE SET result = excluded.result, created_at = excluded.created_at`),
    };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async createKey(key: NewKey): Promise<ApiKeyRecord> {
    const createdAt = key.now.toISOString();
    const id = this.db.transaction(() => {
      const keyId = Number(this.stmt.insertKey.run({ ...key, createdAt }).lastInsertRowid);
      if (key.initialStops > 0) this.creditInTransaction(keyId, key.initialStops, key.reason, null, createdAt);
      return keyId;
    }).immediate();
    return toKey(this.stmt.keyById.get(id) as KeyRow);
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.stmt.keyByHash.get(keyHash) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async findKeyByLast4(last4: string): Promise<ApiKeyRecord[]> {
    return (this.stmt.keysByLast4.all(last4) as KeyRow[]).map(toKey);
  }

  async revokeKey(keyHash: string, now: Date): Promise<boolean> {
    return this.stmt.revokeKey.run(now.toISOString(), keyHash).changes === 1;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (this.stmt.listKeys.all() as KeyRow[]).map(toKey);
  }

  async credit(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, now: Date): Promise<number> {
    return this.db.transaction(() => this.creditInTransaction(keyId, stops, reason, requestId, now.toISOString())).immediate();
  }

  private creditInTransaction(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, createdAt: string): number {
    if (!Number.isSafeInteger(stops) || stops <= 0) throw new RangeError('credit needs a positive whole number of stops');
    const key = this.stmt.keyById.get(keyId) as KeyRow | undefined;
    if (!key) throw new Error(`no key with id ${keyId}`);
    if (key.kind !== 'live') throw new Error('only live keys hold a balance');
    this.stmt.addBalance.run(stops, keyId);
    this.stmt.insertLedger.run({ keyId, delta: stops, reason, requestId, refundOf: null, createdAt });
    return this.stmt.balance.get(keyId) as number;
  }

  async debit(keyId: number, stops: number, requestId: string, now: Date): Promise<DebitOutcome> {
    return this.db.transaction((): DebitOutcome => {
      const changed = this.stmt.conditionalDebit.run({ keyId, stops }).changes;
      if (changed !== 1) return { ok: false, balance: (this.stmt.balance.get(keyId) as number | undefined) ?? 0 };
      const debitId = Number(this.stmt.insertLedger.run({
        keyId, delta: -stops, reason: 'debit', requestId, refundOf: null, createdAt: now.toISOString(),
      }).lastInsertRowid);
      return { ok: true, debitId, balance: this.stmt.balance.get(keyId) as number };
    }).immediate();
  }

  async refund(debitId: number, now: Date): Promise<RefundOutcome> {
    return this.db.transaction((): RefundOutcome => {
      const debit = this.stmt.ledgerById.get(debitId) as { key_id: number; delta: number; reason: string; request_id: string | null } | undefined;
      if (!debit || debit.reason !== 'debit') throw new Error(`ledger entry ${debitId} is not a debit`);
      if (this.stmt.refundOf.get(debitId) !== undefined) {
        return { refunded: false, balance: this.stmt.balance.get(debit.key_id) as number };
      }
      this.stmt.addBalance.run(-debit.delta, debit.key_id);
      this.stmt.insertLedger.run({
        keyId: debit.key_id, delta: -debit.delta, reason: 'refund', requestId: debit.request_id, refundOf: debitId, createdAt: now.toISOString(),
      });
      return { refunded: true, balance: this.stmt.balance.get(debit.key_id) as number };
    }).immediate();
  }

  async ledger(keyId: number): Promise<LedgerEntry[]> {
    return (this.stmt.ledgerByKey.all(keyId) as Array<{
      id: number; key_id: number; delta: number; reason: LedgerEntry['reason']; request_id: string | null; refund_of: number | null; created_at: string;
    }>).map((r) => ({ id: r.id, keyId: r.key_id, delta: r.delta, reason: r.reason, requestId: r.request_id, refundOf: r.refund_of, createdAt: r.created_at }));
  }

  async sandboxUsage(window: SandboxWindow): Promise<SandboxUsage> {
    return this.readSandboxUsage(window);
  }

  private readSandboxUsage(w: SandboxWindow): SandboxUsage {
    const calls = this.stmt.sandboxCalls.get(w.keyId, w.windowStartMs, w.nowMs) as { calls: number; oldest: number | null };
    return { callsInWindow: calls.calls, oldestCallMs: calls.oldest, stopsToday: this.stmt.sandboxStops.get(w.keyId, w.day) as number };
  }

  async reserveSandbox(r: SandboxReservationRequest): Promise<SandboxReservationOutcome> {
    return this.db.transaction((): SandboxReservationOutcome => {
      // rows older than two days can never count again
      this.stmt.pruneSandbox.run(r.keyId, r.nowMs - 2 * 86_400_000);
      const usage = this.readSandboxUsage(r);
      if (usage.callsInWindow >= r.callsPerMinute) return { ok: false, exceeded: 'minute', usage };
      if (usage.stopsToday + r.stops > r.stopsPerDay) return { ok: false, exceeded: 'day', usage };
      const reservationId = Number(this.stmt.insertSandbox.run(r).lastInsertRowid);
      return { ok: true, reservationId, usage: this.readSandboxUsage(r) };
    }).immediate();
  }

  async releaseSandbox(reservationId: number): Promise<void> {
    this.stmt.setSandboxState.run('released', reservationId);
  }

  async consumeSandbox(reservationId: number): Promise<void> {
    this.stmt.setSandboxState.run('consumed', reservationId);
  }

  async beginIdempotent(r: IdempotencyBegin): Promise<IdempotencyOutcome> {
    return this.db.transaction((): IdempotencyOutcome => {
      this.stmt.idempotencyPrune.run(r.expiredBeforeMs);
      const row = this.stmt.idempotencyGet.get(r.keyId, r.idempotencyKey) as
        { request_hash: string; state: 'pending' | 'done'; response_status: number | null; response_body: string | null } | undefined;
      if (!row) {
        this.stmt.idempotencyInsert.run(r);
        return { kind: 'started' };
      }
      if (row.request_hash !== r.requestHash) return { kind: 'conflict' };
      if (row.state === 'pending') return { kind: 'in_progress' };
      return { kind: 'replay', status: row.response_status ?? 200, body: row.response_body ?? 'null' };
    }).immediate();
  }

  async completeIdempotent(keyId: number, idempotencyKey: string, status: number, body: string): Promise<void> {
    this.stmt.idempotencyComplete.run(status, body, keyId, idempotencyKey);
  }

  async abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void> {
    this.stmt.idempotencyAbandon.run(keyId, idempotencyKey);
  }

  async getCachedGeocode(cacheKey: string): Promise<string | undefined> {
    return this.stmt.geocodeGet.get(cacheKey) as string | undefined;
  }

  async putCachedGeocode(cacheKey: string, result: string, now: Date): Promise<void> {
    this.stmt.geocodePut.run(cacheKey, result, now.toISOString());
  }
}
