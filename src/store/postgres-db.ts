/**
 * The PostgreSQL connection as the subject modules use it: a `pg` Pool, migrations under an advisory lock, one
 * transaction (retried after a serialization failure or deadlock) or one autocommit statement at a time, and
 * connection errors given a SQLSTATE that isStorageUnavailable() recognises.
 */
import pg from 'pg';
import type { CustomTypesConfig, PoolClient, PoolConfig } from 'pg';
import { assetPath } from '../assets.js';
import { readMigrations } from './migrate.js';

const MIGRATIONS_DIR = assetPath('migrations/postgres');
/** pg_advisory_lock key held while migrations run, so instances starting together apply each migration once. */
const MIGRATION_LOCK = 72_650_001;
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


/** Thrown inside a transaction to roll it back when a charge can no longer be settled. */
export class NotSettled extends Error {}

const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

const isRetryable = (err: unknown): boolean => {
  const code = sqlState(err);
  return code === '40001' || code === '40P01';
};

/** The SQLSTATE of a violated UNIQUE constraint. */
export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === '23505';

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
export class Tx {
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

export class PgDb {
  constructor(readonly pool: pg.Pool) {}

  /** Runs `fn` in one transaction; retries it from the start after a serialization failure or a deadlock. */
  async tx<T>(fn: (t: Tx) => Promise<T>, mode: 'read write' | 'snapshot' = 'read write'): Promise<T> {
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
  async q<R>(sql: string, params: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
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
}
