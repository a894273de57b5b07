/**
 * `db migrate-to-postgres`: copies a SQLite database into an empty PostgreSQL
 * one, table by table, in ONE PostgreSQL transaction (all or nothing), from one
 * SQLite read snapshot. Then resets the identity sequences and verifies, still
 * inside the transaction, that row counts match and that every key's balance
 * equals both its ledger sum and its SQLite balance; any difference rolls the
 * whole copy back.
 */
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { PoolClient } from 'pg';
import { applyPostgresMigrations, createPostgresPool, mapPostgresError } from './postgres.js';
import { SqliteStore } from './sqlite.js';

interface TableSpec {
  name: string;
  columns: string[];
  /** Has an identity `id` whose sequence must continue after the copied rows. */
  identity: boolean;
  convert?: Partial<Record<string, (value: unknown) => unknown>>;
}

/** In foreign-key order. */
const TABLES: TableSpec[] = [
  {
    name: 'api_keys',
    identity: true,
    columns: ['id', 'kind', 'key_hash', 'last4', 'email', 'balance', 'created_at', 'revoked_at'],
  },
  // rows in id order: a refund always comes after the debit it points at
  {
    name: 'ledger',
    identity: true,
    columns: ['id', 'key_id', 'delta', 'reason', 'request_id', 'client_request_id', 'refund_of', 'created_at'],
  },
  { name: 'pending_debits', identity: false, columns: ['debit_id', 'expires_at_ms', 'owner'] },
  {
    name: 'sandbox_calls',
    identity: true,
    columns: ['id', 'key_id', 'request_id', 'at_ms', 'paris_day', 'stops', 'state', 'expires_at_ms', 'owner'],
  },
  {
    name: 'idempotency_keys',
    identity: false,
    columns: [
      'key_id',
      'idempotency_key',
      'request_hash',
      'state',
      'response_status',
      'response_body',
      'created_at_ms',
      'expires_at_ms',
      'owner',
    ],
  },
  { name: 'geocode_cache', identity: false, columns: ['cache_key', 'result', 'precision', 'engine', 'created_at'] },
  {
    name: 'payments',
    identity: true,
    columns: [
      'id',
      'stripe_event_id',
      'stripe_session_id',
      'email',
      'pack_id',
      'stops',
      'amount_cents',
      'currency',
      'key_id',
      'ledger_id',
      'created_key',
      'created_at',
    ],
    convert: { created_key: (v) => v === 1 || v === true },
  },
  {
    name: 'outbox',
    identity: true,
    columns: [
      'id',
      'kind',
      'to_address',
      'subject',
      'body',
      'key_id',
      'attempts',
      'last_error',
      'created_at',
      'next_attempt_at',
      'sent_at',
      'cancelled_at',
    ],
  },
  { name: 'console_key_requests', identity: true, columns: ['id', 'key_id', 'client_ip', 'email', 'at_ms'] },
  // the pending charges' owners: an expired lease's charges are settled by the first PostgreSQL instance's sweep
  {
    name: 'instance_leases',
    identity: false,
    columns: [
      'instance_id',
      'host',
      'pid',
      'port',
      'started_at_ms',
      'heartbeat_at_ms',
      'expires_at_ms',
      'ended_at_ms',
      'end_reason',
      'ended_by',
    ],
  },
];

const BATCH = 500;

export interface MigrationSummary {
  tables: Array<{ table: string; rows: number }>;
  keysVerified: number;
  totalBalance: number;
}

export interface MigrateOptions {
  sqlitePath: string;
  databaseUrl: string;
  log?: (line: string) => void;
}

export async function migrateSqliteToPostgres(options: MigrateOptions): Promise<MigrationSummary> {
  const log = options.log ?? (() => {});
  if (!existsSync(options.sqlitePath)) throw new Error(`no SQLite database at ${options.sqlitePath} (DATABASE_PATH)`);
  // opening applies the SQLite migrations, so the source has the current schema
  const sqlite = new SqliteStore(options.sqlitePath);
  const pool = createPostgresPool(options.databaseUrl, { poolSize: 1 });
  try {
    await applyPostgresMigrations(pool);
    const client = await pool.connect().catch((err: unknown) => {
      throw mapPostgresError(err);
    });
    try {
      return await copy(sqlite.db, client, log);
    } finally {
      client.release();
    }
  } finally {
    await pool.end().catch(() => {});
    await sqlite.close();
  }
}

async function copy(db: Database.Database, pg: PoolClient, log: (line: string) => void): Promise<MigrationSummary> {
  db.exec('BEGIN'); // one read snapshot of the SQLite file for the whole copy
  await pg.query('BEGIN');
  try {
    // a live lease: the service still writes to the SQLite file, and what it writes after our snapshot would be lost
    const running = db
      .prepare(
        'SELECT instance_id, host, pid, port FROM instance_leases WHERE ended_at_ms IS NULL AND expires_at_ms > ?',
      )
      .all(Date.now()) as Array<{ instance_id: string; host: string; pid: number; port: number }>;
    if (running.length > 0) {
      throw new Error(
        `the service is still running on the SQLite database (${running.map((r) => `instance ${r.instance_id}: ${r.host} pid ${r.pid} port ${r.port}`).join('; ')}): stop it first`,
      );
    }
    // no instance may write while we copy (they would also find the database not empty afterwards)
    await pg
      .query(`LOCK TABLE ${TABLES.map((t) => t.name).join(', ')} IN EXCLUSIVE MODE NOWAIT`)
      .catch((err: { code?: string }) => {
        if (err.code === '55P03')
          throw new Error('the PostgreSQL tables are in use: stop every service instance using DATABASE_URL first');
        throw err;
      });
    const nonEmpty: string[] = [];
    for (const t of TABLES) {
      const { rows } = await pg.query(`SELECT EXISTS (SELECT 1 FROM ${t.name}) AS any`);
      if (rows[0].any) nonEmpty.push(t.name);
    }
    if (nonEmpty.length > 0)
      throw new Error(
        `the PostgreSQL database is not empty (rows in ${nonEmpty.join(', ')}); refusing to copy into it`,
      );

    const summary: MigrationSummary = { tables: [], keysVerified: 0, totalBalance: 0 };
    for (const t of TABLES) {
      const page = db.prepare(
        `SELECT rowid AS "__rowid", ${t.columns.join(', ')} FROM ${t.name} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`,
      );
      let last = Number.MIN_SAFE_INTEGER;
      let copied = 0;
      for (;;) {
        const rows = page.all(last) as Array<Record<string, unknown>>;
        if (rows.length === 0) break;
        const params: unknown[] = [];
        const tuples = rows.map(
          (row) =>
            `(${t.columns
              .map((c) => {
                const convert = t.convert?.[c];
                params.push(convert ? convert(row[c]) : row[c]);
                return `$${params.length}`;
              })
              .join(', ')})`,
        );
        await pg.query(`INSERT INTO ${t.name} (${t.columns.join(', ')}) VALUES ${tuples.join(', ')}`, params);
        copied += rows.length;
        last = rows[rows.length - 1].__rowid as number;
      }
      if (t.identity) {
        await pg.query(
          `SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), COALESCE((SELECT MAX(id) FROM ${t.name}), 0) + 1, false)`,
        );
      }
      summary.tables.push({ table: t.name, rows: copied });
      log(`copied ${t.name}: ${copied} rows`);
    }

    // verify before committing
    for (const t of TABLES) {
      const source = db.prepare(`SELECT COUNT(*) FROM ${t.name}`).pluck().get() as number;
      const { rows } = await pg.query(`SELECT COUNT(*) AS n FROM ${t.name}`);
      const target = Number(rows[0].n);
      if (source !== target) throw new Error(`${t.name}: ${source} rows in SQLite but ${target} in PostgreSQL`);
    }
    const { rows: mismatches } = await pg.query(`SELECT k.id, k.balance, COALESCE(SUM(l.delta), 0) AS ledger_sum
      FROM api_keys k LEFT JOIN ledger l ON l.key_id = k.id GROUP BY k.id HAVING k.balance <> COALESCE(SUM(l.delta), 0) ORDER BY k.id LIMIT 10`);
    if (mismatches.length > 0) {
      throw new Error(
        `balance differs from the ledger sum for key(s) ${mismatches.map((m) => `${m.id} (balance ${m.balance}, ledger ${m.ledger_sum})`).join(', ')}` +
          ': run "db check" on the SQLite database and fix it first',
      );
    }
    const sourceBalances = new Map(
      (db.prepare('SELECT id, balance FROM api_keys').all() as Array<{ id: number; balance: number }>).map((r) => [
        r.id,
        r.balance,
      ]),
    );
    const { rows: balances } = await pg.query('SELECT id, balance FROM api_keys');
    for (const row of balances) {
      if (sourceBalances.get(Number(row.id)) !== Number(row.balance))
        throw new Error(
          `key ${row.id}: balance ${row.balance} in PostgreSQL but ${sourceBalances.get(Number(row.id))} in SQLite`,
        );
      summary.keysVerified++;
      summary.totalBalance += Number(row.balance);
    }
    await pg.query('COMMIT');
    return summary;
  } catch (err) {
    await pg.query('ROLLBACK').catch(() => {});
    throw mapPostgresError(err);
  } finally {
    db.exec('COMMIT');
  }
}
