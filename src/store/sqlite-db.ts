/**
 * One SQLite connection as the subject modules use it: prepared statements cached by their text, and every
 * statement or transaction run through `attempt`, which waits for another connection's lock without blocking
 * the event loop.
 */
import type Database from 'better-sqlite3';

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
export const isUniqueViolation = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';

export class SqliteDb {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database, readonly busyTimeoutMs: number) {}

  /** The prepared statement of `sql`, prepared once per connection. */
  stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** All rows of a query. */
  all<R>(sql: string, ...params: unknown[]): R[] {
    return this.stmt(sql).all(...params) as R[];
  }

  /** The first row of a query, if any. */
  get<R>(sql: string, ...params: unknown[]): R | undefined {
    return this.stmt(sql).get(...params) as R | undefined;
  }

  /** Runs a write; returns the rows changed and the last inserted id. */
  run(sql: string, ...params: unknown[]): { changes: number; id: number } {
    const result = this.stmt(sql).run(...params);
    return { changes: result.changes, id: Number(result.lastInsertRowid) };
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

  /** A write transaction (BEGIN IMMEDIATE: it holds the write lock from its first read, so it reads what it writes over). */
  write<T>(fn: () => T): Promise<T> {
    return this.attempt(() => this.db.transaction(fn).immediate());
  }

  /** A read transaction: one consistent view for every query in it. */
  read<T>(fn: () => T): Promise<T> {
    return this.attempt(() => this.db.transaction(fn)());
  }
}
