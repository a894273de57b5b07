/** The keys subject on PostgreSQL. */
import { decideConsoleIssue, type RequestCount } from '../../billing/rules/quotas.js';
import type { PgDb } from '../postgres-db.js';
import { KEY_COLUMNS, creditRow, insertKeyRow, keyRecord } from '../postgres-rows.js';
import { toKey, type KeyRow } from '../rows.js';
import type { ApiKeyRecord, ConsoleTestKeyOutcome, ConsoleTestKeyRequest, KeyStore, NewKey } from './types.js';

/** Transaction-scoped advisory lock serializing the console's test-key limits. */
const CONSOLE_KEYS_LOCK = 72_650_002;

export function postgresKeys(db: PgDb): KeyStore {
  return {
    async createKey(key: NewKey): Promise<ApiKeyRecord> {
      const createdAt = key.now.toISOString();
      return db.tx(async (t) => {
        const keyId = await insertKeyRow(t, { ...key, createdAt });
        if (key.initialStops > 0) await creditRow(t, keyId, key.initialStops, key.reason, null, createdAt);
        return keyRecord(t, keyId);
      });
    },

    async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
      const { rows } = await db.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
      return rows[0] ? toKey(rows[0]) : null;
    },

    async findKeyByLast4(last4: string): Promise<ApiKeyRecord[]> {
      return (await db.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE last4 = $1 ORDER BY id`, [last4])).rows.map(toKey);
    },

    async revokeKey(keyHash: string, now: Date): Promise<boolean> {
      return (await db.q('UPDATE api_keys SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL', [now.toISOString(), keyHash])).rowCount === 1;
    },

    async listKeys(): Promise<ApiKeyRecord[]> {
      return (await db.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`)).rows.map(toKey);
    },

    async issueConsoleTestKey(r: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome> {
      return db.tx(async (t): Promise<ConsoleTestKeyOutcome> => {
        // the limits count rows of every address and e-mail: one issuer at a time (a rare, cheap call)
        await t.run('SELECT pg_advisory_xact_lock($1)', [CONSOLE_KEYS_LOCK]);
        const byIp = (await t.one<RequestCount>('SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests WHERE client_ip = $1 AND at_ms >= $2',
          [r.clientIp, r.sinceMs]))!;
        const byEmail = (await t.one<RequestCount>('SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests WHERE email = $1 AND at_ms >= $2',
          [r.email, r.sinceMs]))!;
        const decision = decideConsoleIssue(byIp, byEmail, r);
        if (!decision.ok) return decision;
        const keyId = await insertKeyRow(t, { kind: 'test', keyHash: r.keyHash, last4: r.last4, email: r.email, createdAt: new Date(r.nowMs).toISOString() });
        await t.run('INSERT INTO console_key_requests (key_id, client_ip, email, at_ms) VALUES ($1, $2, $3, $4)', [keyId, r.clientIp, r.email, r.nowMs]);
        return { ok: true, record: await keyRecord(t, keyId) };
      });
    },
  };
}
