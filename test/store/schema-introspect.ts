/**
 * Reads a migrated database back into one dialect-neutral shape: tables, columns (type as the SQLite affinity that
 * stores it, NOT NULL), primary key, unique constraints, foreign keys and indexes (columns or expressions, unique,
 * partial condition). The schema test compares the SQLite and PostgreSQL ones.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

export interface IndexShape {
  /** Columns or expressions, in order, lower-cased, spaces and quotes removed. */
  on: string[];
  unique: boolean;
  /** The partial index condition, normalised; null when the index is whole. */
  where: string | null;
}

export interface TableShape {
  /** Column → "<type> [not null]". */
  columns: Record<string, string>;
  primaryKey: string[];
  unique: string[][];
  /** "column → table(column)". */
  foreignKeys: string[];
  indexes: Record<string, IndexShape>;
}

export type SchemaShape = Record<string, TableShape>;

/** PostgreSQL types as the SQLite affinity that holds the same values here (timestamps as ISO-8601 text, booleans as 0/1). */
const PG_TO_SQLITE: Record<string, string> = {
  bigint: 'INTEGER',
  integer: 'INTEGER',
  smallint: 'INTEGER',
  boolean: 'INTEGER',
  text: 'TEXT',
  'timestamp with time zone': 'TEXT',
  bytea: 'BLOB',
};

/** Lower case, no quotes, no spaces, no casts, no redundant parentheses around the whole: comparable across dialects. */
export const normalise = (sql: string): string => {
  let s = sql
    .toLowerCase()
    .replace(/::[a-z ]+/g, '')
    .replace(/["\s]/g, '');
  while (s.startsWith('(') && s.endsWith(')') && balanced(s.slice(1, -1))) s = s.slice(1, -1);
  return s;
};

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

const sorted = <T>(xs: T[]): T[] => [...xs].sort();

export function sqliteSchema(db: Database.Database): SchemaShape {
  const schema: SchemaShape = {};
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[];
  for (const table of tables) {
    const columns = db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{
      name: string;
      type: string;
      notnull: number;
      pk: number;
    }>;
    const shape: TableShape = { columns: {}, primaryKey: [], unique: [], foreignKeys: [], indexes: {} };
    for (const c of columns) shape.columns[c.name] = `${c.type.toUpperCase()}${c.notnull || c.pk ? ' not null' : ''}`;
    shape.primaryKey = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const fks = db.prepare(`PRAGMA foreign_key_list("${table}")`).all() as Array<{
      from: string;
      table: string;
      to: string;
    }>;
    shape.foreignKeys = sorted(fks.map((f) => `${f.from} → ${f.table}(${f.to})`));
    const indexes = db.prepare(`PRAGMA index_list("${table}")`).all() as Array<{
      name: string;
      unique: number;
      origin: string;
      partial: number;
    }>;
    for (const index of indexes) {
      const on = (
        db.prepare(`PRAGMA index_xinfo("${index.name}")`).all() as Array<{ name: string | null; key: number }>
      )
        .filter((c) => c.key === 1)
        .map((c) => c.name ?? '<expression>');
      if (index.origin === 'pk') continue;
      if (index.origin === 'u') {
        shape.unique.push(on);
        continue;
      }
      const sql = db
        .prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`)
        .pluck()
        .get(index.name) as string;
      const where = /\bWHERE\b([\s\S]*)$/i.exec(sql)?.[1] ?? null;
      shape.indexes[index.name] = {
        on: on.map(normalise),
        unique: index.unique === 1,
        where: where === null ? null : normalise(where),
      };
    }
    shape.unique = sorted(shape.unique.map((u) => u.join(','))).map((u) => u.split(','));
    schema[table] = shape;
  }
  return schema;
}

export async function postgresSchema(pool: pg.Pool): Promise<SchemaShape> {
  const schema: SchemaShape = {};
  const q = async <R>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as R[];
  const tables = (
    await q<{ table_name: string }>(`SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`)
  ).map((r) => r.table_name);
  for (const table of tables) {
    const shape: TableShape = { columns: {}, primaryKey: [], unique: [], foreignKeys: [], indexes: {} };
    const columns = await q<{ column_name: string; data_type: string; is_nullable: string }>(
      `SELECT column_name, data_type, is_nullable
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    for (const c of columns)
      shape.columns[c.column_name] =
        `${PG_TO_SQLITE[c.data_type] ?? `unmapped:${c.data_type}`}${c.is_nullable === 'NO' ? ' not null' : ''}`;
    const constraints = await q<{ contype: string; cols: string[]; ftable: string | null; fcols: string[] | null }>(
      `SELECT c.contype,
        ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS cols,
        c.confrelid::regclass::text AS ftable,
        ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS fcols
      FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u', 'f')`,
      [table],
    );
    shape.primaryKey = constraints.find((c) => c.contype === 'p')?.cols ?? [];
    shape.unique = sorted(constraints.filter((c) => c.contype === 'u').map((c) => c.cols.join(','))).map((u) =>
      u.split(','),
    );
    shape.foreignKeys = sorted(
      constraints
        .filter((c) => c.contype === 'f')
        .map((c) => `${c.cols.join(',')} → ${c.ftable}(${c.fcols!.join(',')})`),
    );
    const indexes = await q<{ name: string; unique: boolean; keys: string[]; predicate: string | null }>(
      `SELECT i.relname AS name, x.indisunique AS unique,
        ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) k)::text[] AS keys,
        pg_get_expr(x.indpred, x.indrelid, true) AS predicate
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = $1::regclass AND NOT x.indisprimary
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype = 'u')`,
      [table],
    );
    for (const index of indexes) {
      shape.indexes[index.name] = {
        on: index.keys.map(normalise),
        unique: index.unique,
        where: index.predicate === null ? null : normalise(index.predicate),
      };
    }
    schema[table] = shape;
  }
  return schema;
}
