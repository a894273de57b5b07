/** The keys subject on SQLite. */
import { decideConsoleIssue, type RequestCount } from '../../billing/rules/quotas.js';
import { toKey, type KeyRow } from '../rows.js';
import type { SqliteDb } from '../sqlite-db.js';
import { creditRow, insertKeyRow, keyRecord } from '../sqlite-rows.js';
import type { ApiKeyRecord, ConsoleTestKeyOutcome, ConsoleTestKeyRequest, KeyStore, NewKey } from './types.js';

export function sqliteKeys(d: SqliteDb): KeyStore {
  return {
    async createKey(key: NewKey): Promise<ApiKeyRecord> {
      const createdAt = key.now.toISOString();
      // the read inside the transaction: a retried attempt is always one that committed nothing
      return d.write(() => {
        const keyId = insertKeyRow(d, { ...key, createdAt });
        if (key.initialStops > 0) creditRow(d, keyId, key.initialStops, key.reason, null, createdAt);
        return keyRecord(d, keyId);
      });
    },

    async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
      const row = await d.attempt(() => d.get<KeyRow>('SELECT * FROM api_keys WHERE key_hash = ?', keyHash));
      return row ? toKey(row) : null;
    },

    async findKeyByLast4(last4: string): Promise<ApiKeyRecord[]> {
      return d.attempt(() => d.all<KeyRow>('SELECT * FROM api_keys WHERE last4 = ? ORDER BY id', last4).map(toKey));
    },

    async revokeKey(keyHash: string, now: Date): Promise<boolean> {
      return d.attempt(() => d.run('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL', now.toISOString(), keyHash).changes === 1);
    },

    async listKeys(): Promise<ApiKeyRecord[]> {
      return d.attempt(() => d.all<KeyRow>('SELECT * FROM api_keys ORDER BY id').map(toKey));
    },

    async issueConsoleTestKey(r: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome> {
      return d.write((): ConsoleTestKeyOutcome => {
        const byIp = d.get<RequestCount>('SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests WHERE client_ip = ? AND at_ms >= ?', r.clientIp, r.sinceMs)!;
        const byEmail = d.get<RequestCount>('SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests WHERE email = ? AND at_ms >= ?', r.email, r.sinceMs)!;
        const decision = decideConsoleIssue(byIp, byEmail, r);
        if (!decision.ok) return decision;
        const keyId = insertKeyRow(d, { kind: 'test', keyHash: r.keyHash, last4: r.last4, email: r.email, createdAt: new Date(r.nowMs).toISOString() });
        d.run(`INSERT INTO console_key_requests (key_id, client_ip, email, at_ms) VALUES (?, ?, ?, ?)`, keyId, r.clientIp, r.email, r.nowMs);
        return { ok: true, record: keyRecord(d, keyId) };
      });
    },
  };
}
