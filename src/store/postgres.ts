/**
 * The networked store: PostgreSQL through a `pg` Pool, composed of the subjects, each in its folder beside its
 * SQLite twin. It keeps each guarantee of the SQLite store across several service instances sharing one database:
 * - a balance changes under its key's row lock (SELECT … FOR UPDATE), decided by src/billing/rules, with its
 *   ledger row in the same transaction;
 * - a refund is a ledger row UNIQUE on refund_of (INSERT … ON CONFLICT DO NOTHING);
 * - per-key work that reads then writes (sandbox caps, key replacement) locks the key row first; the console
 *   limits and purchases serialize on transaction-scoped advisory locks;
 * - serialization failures and deadlocks (40001, 40P01) are retried (postgres-db.ts);
 * - connection loss and "cannot write now" errors carry a SQLSTATE that isStorageUnavailable() recognises
 *   (classes 08, 53, 57P).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { postgresGeocodeCache } from './geocode-cache/postgres.js';
import { postgresIdempotency } from './idempotency/postgres.js';
import { postgresKeys } from './keys/postgres.js';
import { postgresLeases } from './leases/postgres.js';
import { postgresLedger } from './ledger/postgres.js';
import { postgresOutbox } from './outbox/postgres.js';
import { postgresPayments } from './payments/postgres.js';
import { applyPostgresMigrations, createPostgresPool, mapPostgresError, PgDb, type PostgresStoreOptions } from './postgres-db.js';
import { postgresSandbox } from './sandbox/postgres.js';
import type { Store } from './types.js';

export { applyPostgresMigrations, createPostgresPool, mapPostgresError, type PostgresStoreOptions };

// the subjects' methods are assigned in the constructor: the class carries their types through this interface
export interface PostgresStore extends Omit<Store, 'kind' | 'close' | 'backup' | 'ping' | 'probeWrite'> {}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private closed = false;
  private readonly db: PgDb;

  private constructor(readonly pool: pg.Pool) {
    const db = new PgDb(pool);
    this.db = db;
    Object.assign(this, postgresKeys(db), postgresLedger(db), postgresSandbox(db), postgresIdempotency(db), postgresLeases(db),
      postgresPayments(db), postgresOutbox(db), postgresGeocodeCache(db));
  }

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

  async backup(_destination: string): Promise<void> {
    throw new Error('db backup copies the SQLite file only. This service runs on PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. '
      + '`pg_dump --format=custom --file=service.dump "$DATABASE_URL"` (consistent while the service runs), or with your provider\'s snapshots / WAL archiving.');
  }

  async ping(): Promise<void> {
    await this.db.q('SELECT 1');
  }

  async probeWrite(now: Date): Promise<void> {
    await this.db.q(`INSERT INTO write_probe (id, at, payload) VALUES (1, $1, $2)
      ON CONFLICT (id) DO UPDATE SET at = excluded.at, payload = excluded.payload`, [now.toISOString(), randomBytes(32 * 1024)]);
  }
}
