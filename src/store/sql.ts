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

type Answer = { value: unknown } | { error: unknown };

/** Gives a statement's answer back to the work, or its error (so the work's `finally` blocks run); the work's next step. */
const resume = <T>(work: Work<T>, answer: Answer): IteratorResult<Statement, T> =>
  'error' in answer ? work.throw(answer.error) : work.next(answer.value);

/** Drives `work` with a driver whose statements answer at once. */
export function drive<T>(work: Work<T>, exec: (s: Statement) => unknown): T {
  let next = work.next();
  while (!next.done) {
    let answer: Answer;
    try {
      answer = { value: exec(next.value) };
    } catch (error) {
      answer = { error };
    }
    next = resume(work, answer);
  }
  return next.value;
}

/** The same, for a driver whose statements answer asynchronously. */
export async function driveAsync<T>(work: Work<T>, exec: (s: Statement) => Promise<unknown>): Promise<T> {
  let next = work.next();
  while (!next.done)
    next = resume(
      work,
      await exec(next.value).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    );
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

/** `$first, $first+1, …` for an IN list of `count` parameters. */
export const placeholders = (count: number, first = 1): string =>
  Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');

/** Bytes the write probe writes: more pages than one paid call writes, so a probe that passes means a call can. */
export const WRITE_PROBE_BYTES = 32 * 1024;

/** The readiness probe's write: one row rewritten with that payload. */
export const WRITE_PROBE_SQL = `INSERT INTO write_probe (id, at, payload) VALUES (1, $1, $2)
  ON CONFLICT (id) DO UPDATE SET at = excluded.at, payload = excluded.payload`;
