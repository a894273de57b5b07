/**
 * One SQLite connection as the subjects use it (the SqlDb of sql.ts): prepared statements cached by their text,
 * the subjects' work driven synchronously inside one transaction, and every statement or transaction run through
 * `attempt`, which waits for another connection's lock without blocking the event loop.
 */
import type Database from 'better-sqlite3';
import { drive, type Dialect, type SqlDb, type Statement, type Work } from './sql.js';

/**
 * SQLite's own busy handler sleeps on the thread that runs the statement, here the event loop's: it is off
 * (busy_timeout 0) once the store is open. A statement that meets another connection's lock fails at once
 * and is tried again after an asynchronous pause, as the busy handler would after a sleep, so a hundred calls
 * waiting on one lock cost the event loop nothing but their retries.
 */
export const SQLITE_SYNC_BUSY_WAIT_MS = 0;
/** Pauses between attempts: 1 ms doubling to this, with jitter so that waiting calls do not retry in step. */
const MAX_RETRY_PAUSE_MS = 50;

const isBusy = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The SQLite error code of a violated UNIQUE constraint. */
const isUniqueViolation = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';

export const SQLITE_DIALECT: Dialect = {
  kind: 'sqlite',
  forUpdate: () => '',
  skipLocked: '',
  serialize: () => null,
  emailEquals: (param) => `email = ${param} COLLATE NOCASE`,
};

/** A statement prepared once per connection, and the order in which its `$n` parameters stand as SQLite's `?`. */
interface Prepared {
  statement: Database.Statement;
  order: number[];
}

/** better-sqlite3 binds no booleans: SQLite stores them as 0 and 1. */
const bindable = (value: unknown): unknown => (typeof value === 'boolean' ? Number(value) : value);

export class SqliteDb implements SqlDb {
  readonly dialect = SQLITE_DIALECT;
  private readonly statements = new Map<string, Prepared>();

  constructor(
    readonly db: Database.Database,
    readonly busyTimeoutMs: number,
  ) {}

  /** Runs one statement now, on this connection. */
  exec({ sql, params, want }: Statement): unknown {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
        order.push(Number(n) - 1);
        return '?';
      });
      prepared = { statement: this.db.prepare(text), order };
      this.statements.set(sql, prepared);
    }
    const values = prepared.order.map((i) => bindable(params[i]));
    if (want === 'count') return prepared.statement.run(...values).changes;
    return prepared.statement.reader ? prepared.statement.all(...values) : (prepared.statement.run(...values), []);
  }

  /**
   * Runs `op` (one statement or one transaction); while another connection holds the lock (SQLITE_BUSY) it is
   * tried again after a pause that gives the event loop back, until `budgetMs` has passed, then the error is thrown
   * (503 storage_unavailable). A failed attempt changed nothing: its transaction was rolled back whole.
   */
  async attempt<T>(op: () => T, budgetMs = this.busyTimeoutMs): Promise<T> {
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

  /**
   * A write transaction (BEGIN IMMEDIATE: it holds the write lock from its first read, so it reads what it writes
   * over). The work runs synchronously: no other statement of this process can slip into the transaction.
   */
  write<T>(work: () => Work<T>): Promise<T> {
    return this.attempt(() => this.db.transaction(() => drive(work(), (s) => this.exec(s))).immediate());
  }

  /** A read transaction: one consistent view for every query in it. */
  read<T>(work: () => Work<T>): Promise<T> {
    return this.attempt(() => this.db.transaction(() => drive(work(), (s) => this.exec(s)))());
  }

  rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.attempt(() => this.exec({ sql, params, want: 'rows' }) as R[]);
  }

  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.attempt(() => this.exec({ sql, params, want: 'count' }) as number);
  }

  isUniqueViolation(err: unknown): boolean {
    return isUniqueViolation(err);
  }
}
