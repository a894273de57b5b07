/**
 * What every store contract suite shares (test/store/*.contract.test.ts, one per subject, each run against
 * both implementations): the embedded SQLite store and the PostgreSQL store (a throwaway cluster, test/helpers/postgres.ts).
 * Each test gets an empty database; "another instance" is another store opened
 * on the same database (another SQLite connection, another pg Pool), so the
 * concurrency tests race real connections.
 */
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Billing } from '../../src/billing/billing.js';
import { InstanceLease } from '../../src/billing/lease.js';
import { generateApiKey, hashApiKey, lastFour } from '../../src/billing/keys.js';
import { ConsoleTestKeys } from '../../src/console/test-keys.js';
import { DomainError } from '../../src/errors.js';
import { Outbox } from '../../src/mail/outbox.js';
import type { MailMessage, MailSender } from '../../src/mail/sender.js';
import { readMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import {
  isStorageUnavailable,
  type NewOutboxMessage,
  type PurchaseRequest,
  type Store,
} from '../../src/store/types.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { freePort } from '../helpers/process.js';
import { manualClock, tempDir } from '../helpers/server.js';
import { tsWorker } from '../helpers/ts-worker.js';

export type Location = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** One empty database of one backend. */
export interface Db {
  location: Location;
  /** Opens a store on it (a new connection or pool: "another instance"). Closed after the test. */
  open(options?: { busyTimeoutMs?: number }): Promise<Store>;
  /** Another connection takes the write lock (SQLite: BEGIN EXCLUSIVE; PostgreSQL: LOCK TABLE api_keys IN EXCLUSIVE MODE); call to release. */
  lockWrites(): Promise<() => Promise<void>>;
  /** Raw SQL outside the store (tampering, inspection). */
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

export let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => {});
});

export async function freshDb(kind: 'sqlite' | 'postgres'): Promise<Db> {
  if (kind === 'sqlite') {
    const path = join(tempDir('ros-contract-'), 'service.db');
    return {
      location: { kind, path },
      async open(options = {}) {
        const s = new SqliteStore(path, options);
        opened.push(s);
        return s;
      },
      async lockWrites() {
        const other = new Database(path);
        other.exec('BEGIN EXCLUSIVE');
        return async () => {
          other.exec('COMMIT');
          other.close();
        };
      },
      async query(sql, params = []) {
        const db = new Database(path);
        try {
          const stmt = db.prepare(sql);
          return stmt.reader ? (stmt.all(...params) as Array<Record<string, unknown>>) : (stmt.run(...params), []);
        } finally {
          db.close();
        }
      },
    };
  }
  const url = await server.createDatabase('contract');
  return {
    location: { kind, url },
    async open(options = {}) {
      const s = await PostgresStore.open(url, { lockTimeoutMs: options.busyTimeoutMs });
      opened.push(s);
      return s;
    },
    async lockWrites() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('BEGIN');
      await client.query('LOCK TABLE api_keys IN EXCLUSIVE MODE');
      return async () => {
        await client.query('COMMIT');
        await client.end();
      };
    },
    async query(sql, params = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
  };
}

export const now = new Date('2026-06-01T08:00:00Z');
export const pending = (ms = 60_000) => ({ untilMs: Date.now() + ms, owner: 't' });
export const limits = { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 };

export async function liveKey(store: Store, stops: number, email: string | null = null) {
  return store.createKey({
    kind: 'live',
    keyHash: `h${Math.random()}`,
    last4: 'abcd',
    email,
    initialStops: stops,
    reason: 'admin_credit',
    now,
  });
}

export async function ledgerSum(store: Store, keyId: number) {
  return (await store.ledger(keyId)).reduce((sum, e) => sum + e.delta, 0);
}

export function rejected(err: unknown, status: number, code: string): DomainError {
  assert.ok(err instanceof DomainError, `expected DomainError, got ${String(err)}`);
  assert.equal(err.status, status);
  assert.equal(err.code, code);
  return err;
}

export const material = () => {
  const key = generateApiKey('live');
  return { key, newKey: { keyHash: hashApiKey(key), last4: lastFour(key) } };
};

export function purchase(overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
  const { key, newKey } = material();
  return {
    stripeEventId: `evt_${Math.random().toString(36).slice(2)}`,
    stripeSessionId: `cs_test_${Math.random().toString(36).slice(2)}`,
    email: 'buyer@example.com',
    packId: 'pack_2k',
    stops: 2000,
    amountCents: 2900,
    currency: 'eur',
    newKey,
    composeMail: ({ createdKey, key: record, balance }): NewOutboxMessage =>
      createdKey
        ? { kind: 'new_key', to: 'buyer@example.com', subject: 'key', body: `key ${key} balance ${balance}` }
        : {
            kind: 'top_up',
            to: 'buyer@example.com',
            subject: 'top-up',
            body: `key ending ${record.last4} balance ${balance}`,
          },
    now: new Date('2026-03-01T10:00:00Z'),
    ...overrides,
  };
}

export function recordingSender() {
  const sent: MailMessage[] = [];
  const sender: MailSender & { sent: MailMessage[] } = {
    mode: 'smtp',
    sent,
    async send(message) {
      await new Promise((r) => setTimeout(r, 5));
      sent.push(message);
      return { messageId: `<${sent.length}@test>` };
    },
    close() {},
  };
  return sender;
}
export const silent = { info() {}, warn() {} };

export const BACKENDS = ['sqlite', 'postgres'] as const;

/** One subject's contract, described once and run against both stores. */
export function describeContract(subject: string, body: (kind: (typeof BACKENDS)[number]) => void): void {
  for (const kind of BACKENDS) describe(`Store contract, ${subject}: ${kind}`, () => body(kind));
}
