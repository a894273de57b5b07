/**
 * The keys subject's row functions, run inside the transactions of other subjects as well (the ledger reads the
 * key a rule decides on; payments create, find and revoke keys).
 */
import { toKey, type KeyRow } from '../rows.js';
import { one, rows, run, type Dialect, type Work } from '../sql.js';
import type { ApiKeyRecord, KeyKind } from './types.js';

export const KEY_COLUMNS = 'id, kind, last4, email, balance, created_at, revoked_at';

/** The key row; with `lock`, locked until the transaction ends (PostgreSQL), so a rule's reading of it stays true. */
export const keyRow = (d: Dialect, id: number, lock = false): Work<KeyRow | undefined> =>
  one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1${lock ? d.forUpdate() : ''}`, [id]);

export function* keyRecord(d: Dialect, id: number): Work<ApiKeyRecord> {
  return toKey((yield* keyRow(d, id))!);
}

/** Every key of an e-mail, whatever its case, locked. */
export const keysOfEmail = (d: Dialect, email: string): Work<KeyRow[]> =>
  rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE ${d.emailEquals('$1')}${d.forUpdate()}`, [email]);

export function* insertKeyRow(k: {
  kind: KeyKind;
  keyHash: string;
  last4: string;
  email: string | null;
  createdAt: string;
}): Work<number> {
  const row = yield* one<{ id: number }>(
    `INSERT INTO api_keys (kind, key_hash, last4, email, balance, created_at)
    VALUES ($1, $2, $3, $4, 0, $5) RETURNING id`,
    [k.kind, k.keyHash, k.last4, k.email, k.createdAt],
  );
  return row!.id;
}

export const revokeKeyRow = (id: number, at: string): Work<number> =>
  run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
