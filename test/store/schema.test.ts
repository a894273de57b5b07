/**
 * One schema in two dialects: both databases are migrated from empty, read back (test/store/schema-introspect.ts)
 * and compared table by table: columns with their mapped types and NOT NULL, primary keys, unique constraints,
 * foreign keys and indexes. A migration added to one dialect and not the other fails here.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { applyPostgresMigrations, createPostgresPool } from '../../src/store/postgres.js';
import { applySqliteMigrations } from '../../src/store/sqlite.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';
import { normalise, postgresSchema, sqliteSchema, type SchemaShape } from './schema-introspect.js';

/**
 * The differences the dialects impose, each with its reason; everything else must match exactly.
 * - schema_migrations.applied_at: each runner's bookkeeping, not the service's data (TEXT / timestamptz alike).
 * - api_keys_email: PostgreSQL indexes lower(email) for its case-insensitive lookups; SQLite's lookups use
 *   COLLATE NOCASE on the plain column.
 */
function allowDialectDifferences(schema: SchemaShape, dialect: 'sqlite' | 'postgres'): SchemaShape {
  const copy = structuredClone(schema);
  if (dialect === 'postgres')
    copy.api_keys.indexes.api_keys_email.on = copy.api_keys.indexes.api_keys_email.on.map((c) =>
      c === normalise('lower(email)') ? 'email' : c,
    );
  return copy;
}

let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

test('the SQLite and PostgreSQL migrations describe the same tables, columns, types, keys and indexes', async () => {
  const db = new Database(join(tempDir('ros-schema-'), 'schema.db'));
  const pool = createPostgresPool(await server.createDatabase('schema'));
  try {
    applySqliteMigrations(db);
    await applyPostgresMigrations(pool);
    const sqlite = allowDialectDifferences(sqliteSchema(db), 'sqlite');
    const postgres = allowDialectDifferences(await postgresSchema(pool), 'postgres');
    assert.deepEqual(Object.keys(sqlite).sort(), Object.keys(postgres).sort(), 'the same tables');
    for (const table of Object.keys(sqlite)) assert.deepEqual(sqlite[table], postgres[table], `table ${table}`);
  } finally {
    db.close();
    await pool.end();
  }
});

test('the comparison sees a difference: a column, a type, an index left out of one dialect', async () => {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b INTEGER REFERENCES t (id), UNIQUE (a, b));
      CREATE INDEX t_b ON t (b) WHERE a IS NOT NULL;`);
    const shape = sqliteSchema(db).t;
    assert.deepEqual(shape, {
      columns: { id: 'INTEGER not null', a: 'TEXT not null', b: 'INTEGER' },
      primaryKey: ['id'],
      unique: [['a', 'b']],
      foreignKeys: ['b → t(id)'],
      indexes: { t_b: { on: ['b'], unique: false, where: 'aisnotnull' } },
    });
    db.exec('DROP INDEX t_b');
    assert.notDeepEqual(sqliteSchema(db).t, shape);
  } finally {
    db.close();
  }
});
