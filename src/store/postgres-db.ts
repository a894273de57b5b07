/**
 * The PostgreSQL connection as the subjects use it (the SqlDb and Dialect of sql.ts): a `pg` Pool, migrations
 * under an advisory lock, the subjects' work driven one awaited statement at a time inside one transaction on one
 * pooled connection (retried whole after a serialization failure or deadlock) or one autocommit statement, and
 * connection errors given a SQLSTATE that isStorageUnavailable() recognises.
 */
import pg from 'pg';
import type { CustomTypesConfig, PoolClient, PoolConfig } from 'pg';
import { assetPath } from '../assets.js';
import { readMigrations } from './migrate.js';
import { driveAsync, type Dialect, type SerialLock, type SqlDb, type Statement, type Work } from './sql.js';

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

const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

const isRetryable = (err: unknown): boolean => {
  const code = sqlState(err);
  return code === '40001' || code === '40P01';
};

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable/i;

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

/** Runs `op` again from the start after a serialization failure or a deadlock; connection errors get their SQLSTATE. */
async function retrying<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (isRetryable(err) && attempt < MAX_ATTEMPTS) {
        await backoff(attempt);
        continue;
      }
      throw mapPostgresError(err);
    }
  }
}

/** Transaction-scoped advisory lock keys (pg_advisory_xact_lock). */
const CONSOLE_KEYS_LOCK = 72_650_002;

export const POSTGRES_DIALECT: Dialect = {
  kind: 'postgres',
  forUpdate: (of) => (of ? ` FOR UPDATE OF ${of}` : ' FOR UPDATE'),
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  serialize: (lock: SerialLock): Statement =>
    lock.kind === 'console-keys'
      ? { sql: 'SELECT pg_advisory_xact_lock($1)', params: [CONSOLE_KEYS_LOCK], want: 'count' }
      : {
          sql: `SELECT pg_advisory_xact_lock(hashtext('purchase:' || lower($1)))`,
          params: [lock.email],
          want: 'count',
        },
  emailEquals: (param) => `lower(email) = lower(${param})`,
};

const exec = async (client: PoolClient, { sql, params, want }: Statement): Promise<unknown> => {
  const result = await client.query(sql, params as unknown[]);
  return want === 'rows' ? result.rows : (result.rowCount ?? 0);
};

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
  /**
   * A session of this pool left idle inside a transaction for this long is ended by the server, which releases
   * its row locks (PostgreSQL: idle_in_transaction_session_timeout; 0 or absent = never). The service sets it to
   * its lease expiry: its transactions run their statements back to back, so only a process frozen in the middle
   * of one (stopped, a paused VM) stays idle in it, and its locks would keep the other instances' recovery sweep
   * (SKIP LOCKED) from ever taking over its lease.
   */
  idleInTransactionTimeoutMs?: number;
  /** Extra pg Pool settings (tests). */
  pool?: Omit<PoolConfig, 'connectionString' | 'types'>;
}

export function createPostgresPool(url: string, options: PostgresStoreOptions = {}): pg.Pool {
  // a session setting rather than a startup parameter, which poolers such as PgBouncer refuse; set before the pool
  // hands the new connection out (a 'connect' listener would race the first query on it), and a connection that
  // cannot take it is closed and its caller answered with the error
  const lockTimeoutMs = Math.max(0, Math.floor(options.lockTimeoutMs ?? 5_000));
  const idleInTransactionMs = Math.max(0, Math.floor(options.idleInTransactionTimeoutMs ?? 0));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 15_000,
    idleTimeoutMillis: 30_000,
    application_name: 'route-optimization-service',
    ...options.pool,
    types: TYPES,
    onConnect: async (client) => {
      await client.query(`SET lock_timeout = ${lockTimeoutMs}`);
      if (idleInTransactionMs > 0)
        await client.query(`SET idle_in_transaction_session_timeout = ${idleInTransactionMs}`);
    },
  });
  // an idle connection that breaks (server restart) must not crash the process: the next query reports it
  pool.on('error', () => {});
  return pool;
}

/** Applies the numbered migrations not yet applied, under a session advisory lock. Returns the versions applied. */
export async function applyPostgresMigrations(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect().catch((err: unknown) => {
    throw mapPostgresError(err);
  });
  const done: number[] = [];
  try {
    // instances starting together wait for each other's migrations as long as they take
    const { lock_timeout: lockTimeout } = (await client.query('SHOW lock_timeout')).rows[0] as { lock_timeout: string };
    await client.query('SET lock_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`);
      const applied = new Set(
        (await client.query('SELECT version FROM schema_migrations')).rows.map((r: { version: number }) => r.version),
      );
      for (const migration of readMigrations(MIGRATIONS_DIR)) {
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [
            migration.version,
            migration.name,
          ]);
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

export class PgDb implements SqlDb {
  readonly dialect = POSTGRES_DIALECT;

  constructor(readonly pool: pg.Pool) {}

  /** Runs the work in one transaction; retries it from the start after a serialization failure or a deadlock. */
  write<T>(work: () => Work<T>): Promise<T> {
    return this.transaction(work, 'BEGIN');
  }

  /** One snapshot for every statement of the work. */
  read<T>(work: () => Work<T>): Promise<T> {
    return this.transaction(work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  private transaction<T>(work: () => Work<T>, begin: string): Promise<T> {
    return retrying(async () => {
      const client = await this.pool.connect();
      let broken = false;
      // a connection lost mid-transaction is also emitted as 'error' on the checked-out client: without a
      // listener that would crash the process (the query in flight rejects with the same error)
      const onError = (): void => {
        broken = true;
      };
      client.on('error', onError);
      try {
        await client.query(begin);
        const result = await driveAsync(work(), (s) => exec(client, s));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    });
  }

  async rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.query(sql, params)).rows as R[];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  isUniqueViolation(err: unknown): boolean {
    return sqlState(err) === '23505';
  }

  /** One statement on its own (autocommit), retried after a deadlock. */
  private query(sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
    return retrying(() => this.pool.query(sql, params as unknown[]));
  }
}
