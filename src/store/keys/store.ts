/** The keys subject, once for both databases: it writes `api_keys` (but for the balance, the ledger's) and `console_key_requests`. */
import { decideConsoleIssue, type RequestCount } from '../../billing/rules/quotas.js';
import { creditKey } from '../ledger/store.js';
import { toKey, type KeyRow } from '../rows.js';
import { one, run, type SqlDb, type Work } from '../sql.js';
import { KEY_COLUMNS, insertKeyRow, keyRecord } from './rows.js';
import type { ApiKeyRecord, ConsoleTestKeyOutcome, ConsoleTestKeyRequest, KeyStore, NewKey } from './types.js';

export function keyStore(db: SqlDb): KeyStore {
  const d = db.dialect;
  return {
    async createKey(key: NewKey): Promise<ApiKeyRecord> {
      const createdAt = key.now.toISOString();
      return db.write(function* () {
        const keyId = yield* insertKeyRow({ ...key, createdAt });
        if (key.initialStops > 0) yield* creditKey(d, keyId, key.initialStops, key.reason, null, createdAt);
        return yield* keyRecord(d, keyId);
      });
    },

    async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
      const [row] = await db.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
      return row ? toKey(row) : null;
    },

    async findKeyByLast4(last4: string): Promise<ApiKeyRecord[]> {
      return (await db.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE last4 = $1 ORDER BY id`, [last4])).map(
        toKey,
      );
    },

    async revokeKey(keyHash: string, now: Date): Promise<boolean> {
      return (
        (await db.run('UPDATE api_keys SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL', [
          now.toISOString(),
          keyHash,
        ])) === 1
      );
    },

    async listKeys(): Promise<ApiKeyRecord[]> {
      return (await db.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`)).map(toKey);
    },

    async issueConsoleTestKey(r: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome> {
      return db.write(function* (): Work<ConsoleTestKeyOutcome> {
        // the limits count rows of every address and e-mail: one issuer at a time (a rare, cheap call)
        const lock = d.serialize({ kind: 'console-keys' });
        if (lock) yield lock;
        const byIp = (yield* one<RequestCount>(
          'SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests WHERE client_ip = $1 AND at_ms >= $2',
          [r.clientIp, r.sinceMs],
        ))!;
        const byEmail = (yield* one<RequestCount>(
          'SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM console_key_requests WHERE email = $1 AND at_ms >= $2',
          [r.email, r.sinceMs],
        ))!;
        const decision = decideConsoleIssue(byIp, byEmail, r);
        if (!decision.ok) return decision;
        const keyId = yield* insertKeyRow({
          kind: 'test',
          keyHash: r.keyHash,
          last4: r.last4,
          email: r.email,
          createdAt: new Date(r.nowMs).toISOString(),
        });
        yield* run('INSERT INTO console_key_requests (key_id, client_ip, email, at_ms) VALUES ($1, $2, $3, $4)', [
          keyId,
          r.clientIp,
          r.email,
          r.nowMs,
        ]);
        return { ok: true, record: yield* keyRecord(d, keyId) };
      });
    },
  };
}
