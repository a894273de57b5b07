/**
 * The networked store: PostgreSQL through a `pg` Pool (postgres-db.ts), running the subjects written once for
 * both databases (subjects.ts). It keeps each guarantee of the SQLite store across several service instances
 * sharing one database:
 * - a balance changes under its key's row lock (the dialect's FOR UPDATE), decided by src/billing/rules, with its
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
import {
  applyPostgresMigrations,
  createPostgresPool,
  mapPostgresError,
  PgDb,
  type PostgresStoreOptions,
} from './postgres-db.js';
import { WRITE_PROBE_BYTES, WRITE_PROBE_SQL } from './sql.js';
import { subjectStores, type Subjects } from './subjects.js';
import type { Store } from './types.js';

export { applyPostgresMigrations, createPostgresPool, mapPostgresError, type PostgresStoreOptions };

// the subjects' methods are assigned in the constructor: the class carries their types through this interface
export interface PostgresStore extends Subjects {}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private closed = false;
  private readonly db: PgDb;

  private constructor(readonly pool: pg.Pool) {
    const db = new PgDb(pool);
    this.db = db;
    Object.assign(this, subjectStores(db));
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
    throw new Error(
      'db backup copies the SQLite file only. This service runs on PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. ' +
        '`pg_dump --format=custom --file=service.dump "$DATABASE_URL"` (consistent while the service runs), or with your provider\'s snapshots / WAL archiving.',
    );
  }

  async ping(): Promise<void> {
    await this.db.rows('SELECT 1');
  }

  async probeWrite(now: Date): Promise<void> {
    await this.db.run(WRITE_PROBE_SQL, [now.toISOString(), randomBytes(WRITE_PROBE_BYTES)]);
  }
}
