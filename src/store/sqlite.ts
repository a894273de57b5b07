/**
 * The embedded store: SQLite in WAL mode through better-sqlite3. It opens and migrates the file and runs the
 * subjects (subjects.ts, written once for both databases) on its connection (sqlite-db.ts); this module keeps
 * what concerns the database as a whole.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { assetPath, sqliteNativeBinding } from '../assets.js';
import { ensurePrivateFile, tightenIfExists } from '../private-files.js';
import { readMigrations } from './migrate.js';
import { SQLITE_SYNC_BUSY_WAIT_MS, SqliteDb } from './sqlite-db.js';
import { subjectStores, type Subjects } from './subjects.js';
import { WRITE_PROBE_BYTES, WRITE_PROBE_SQL } from './sql.js';
import type { Store } from './types.js';

export { SQLITE_SYNC_BUSY_WAIT_MS };

const MIGRATIONS_DIR = assetPath('migrations/sqlite');
/** The readiness write probe gives up on a lock sooner than a call does. */
const PROBE_BUDGET_MS = 1_000;

export interface SqliteStoreOptions {
  /**
   * How long, in total, a statement waits for another connection's lock before failing with SQLITE_BUSY
   * (503 storage_unavailable). The wait never blocks the event loop: see SQLITE_SYNC_BUSY_WAIT_MS.
   */
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
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    }).immediate();
    done.push(migration.version);
  }
  return done;
}

// the subjects' methods are assigned in the constructor: the class carries their types through this interface
export interface SqliteStore extends Subjects {}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly db: Database.Database;
  private readonly conn: SqliteDb;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // SQLite gives the -wal and -shm files the database file's mode: create it 0600 first (and tighten older ones)
      ensurePrivateFile(path);
      tightenIfExists(`${path}-wal`);
      tightenIfExists(`${path}-shm`);
    }
    // the single executable passes its embedded addon (better-sqlite3 accepts the loaded object; its types list only a path)
    this.db = new Database(path, {
      timeout: busyTimeoutMs,
      nativeBinding: sqliteNativeBinding() as Database.Options['nativeBinding'],
    });
    // opening and migrating happen once, before the service listens: they may wait for a lock the whole budget
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('synchronous = NORMAL');
    applySqliteMigrations(this.db);
    this.db.pragma(`busy_timeout = ${Math.min(SQLITE_SYNC_BUSY_WAIT_MS, busyTimeoutMs)}`);
    const d = new SqliteDb(this.db, busyTimeoutMs);
    this.conn = d;
    Object.assign(this, subjectStores(d));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async backup(destination: string): Promise<void> {
    mkdirSync(dirname(destination), { recursive: true });
    // the copy holds what the database holds: 0600 before SQLite writes into it
    ensurePrivateFile(destination);
    await this.db.backup(destination);
  }

  async probeWrite(now: Date): Promise<void> {
    await this.conn.attempt(
      () =>
        this.conn.exec({
          sql: WRITE_PROBE_SQL,
          params: [now.toISOString(), randomBytes(WRITE_PROBE_BYTES)],
          want: 'count',
        }),
      Math.min(PROBE_BUDGET_MS, this.conn.busyTimeoutMs),
    );
  }

  async ping(): Promise<void> {
    await this.conn.rows('SELECT 1');
  }
}
