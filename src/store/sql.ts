/**
 * The seam between the subjects and the two databases. A subject writes each transaction once, as a generator
 * that yields its statements (`yield* rows(…)`, `yield* run(…)`) and gets their results back; the database that
 * runs it decides how: better-sqlite3 drives it synchronously inside one `BEGIN IMMEDIATE` transaction (nothing
 * else of the process runs in between), pg drives it one awaited query at a time on one pooled connection.
 * Statements name their parameters `$1, $2 …` in both dialects; what the dialects do differently (row locks,
 * advisory locks, case-insensitive e-mail) is asked of `Dialect`, never tested by name in a subject.
 */

/** One statement: `rows` answers its rows (RETURNING included), `count` the number of rows it changed. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
  want: 'rows' | 'count';
}

/** A transaction's work, or part of one: yields statements, receives their answers, returns its result. */
export type Work<T> = Generator<Statement, T, unknown>;

export function* rows<R>(sql: string, params: readonly unknown[] = []): Work<R[]> {
  return (yield { sql, params, want: 'rows' }) as R[];
}

export function* one<R>(sql: string, params: readonly unknown[] = []): Work<R | undefined> {
  return (yield* rows<R>(sql, params))[0];
}

/** Runs a write; answers the number of rows it changed. */
export function* run(sql: string, params: readonly unknown[] = []): Work<number> {
  return (yield { sql, params, want: 'count' }) as number;
}

/** Drives `work` with `exec`, giving a failed statement's error back to the work (so its `finally` blocks run). */
export function drive<T>(work: Work<T>, exec: (s: Statement) => unknown): T {
  let next = work.next();
  while (!next.done) {
    let answer: unknown;
    try {
      answer = exec(next.value);
    } catch (err) {
      next = work.throw(err);
      continue;
    }
    next = work.next(answer);
  }
  return next.value;
}

/** The same, for a driver whose statements answer asynchronously. */
export async function driveAsync<T>(work: Work<T>, exec: (s: Statement) => Promise<unknown>): Promise<T> {
  let next = work.next();
  while (!next.done) {
    let answer: unknown;
    try {
      answer = await exec(next.value);
    } catch (err) {
      next = work.throw(err);
      continue;
    }
    next = work.next(answer);
  }
  return next.value;
}

/** A lock that serializes a kind of work across the instances sharing one database (PostgreSQL only). */
export type SerialLock = { kind: 'console-keys' } | { kind: 'purchases-of'; email: string };

/** What the two SQL dialects do differently, as the subjects ask it. */
export interface Dialect {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Ends a SELECT whose rows a later write of the transaction depends on: PostgreSQL locks them (`FOR UPDATE`,
   * `OF` one table of a join); SQLite needs nothing, its write transaction already holds the database's lock.
   */
  forUpdate(of?: string): string;
  /** Ends the recovery sweep's SELECT: rows another transaction holds right now are left to it. */
  readonly skipLocked: string;
  /**
   * The statement that takes a transaction-scoped lock serializing one kind of work across instances; none on
   * SQLite (one writer at a time already).
   */
  serialize(lock: SerialLock): Statement | null;
  /** A case-insensitive comparison of `email` with a parameter, as its index is written. */
  emailEquals(param: string): string;
}

/** A database the subjects run their work on. */
export interface SqlDb {
  readonly dialect: Dialect;
  /** One write transaction, retried whole while the database asks (SQLite busy; PostgreSQL serialization failure or deadlock). */
  write<T>(work: () => Work<T>): Promise<T>;
  /** One consistent read of several statements. */
  read<T>(work: () => Work<T>): Promise<T>;
  /** One statement on its own (autocommit). */
  rows<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** One write on its own (autocommit); the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** The error of a violated UNIQUE constraint. */
  isUniqueViolation(err: unknown): boolean;
}

/** Thrown inside a transaction to roll it back when a charge can no longer be settled. */
export class NotSettled extends Error {}

/** `$first, $first+1, …` for an IN list of `count` parameters. */
export const placeholders = (count: number, first = 1): string => Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');

/** Bytes the write probe writes: more pages than one paid call writes, so a probe that passes means a call can. */
export const WRITE_PROBE_BYTES = 32 * 1024;

/** The readiness probe's write: one row rewritten with that payload. */
export const WRITE_PROBE_SQL = `INSERT INTO write_probe (id, at, payload) VALUES (1, $1, $2)
  ON CONFLICT (id) DO UPDATE SET at = excluded.at, payload = excluded.payload`;
