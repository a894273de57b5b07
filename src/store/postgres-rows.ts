/**
 * Row writes that several PostgreSQL subjects share inside their transactions (a key, a ledger row with its
 * balance, a refund, an outbox row). What to write is decided by src/billing/rules; the key row is locked
 * (FOR UPDATE) before a rule reads its balance, so the decision holds until the transaction commits.
 */
import { decideCredit, refundOf, type RefundEntry } from '../billing/rules/charges.js';
import { OWNER_LEASE_COLUMNS, joinOwnerLease, type OwnerLeaseColumns } from './owner-lease.js';
import type { Tx } from './postgres-db.js';
import { balanceHolder, toKey, type KeyRow } from './rows.js';

export { balanceHolder };
import type { ApiKeyRecord } from './keys/types.js';
import type { RecoveryReport } from './leases/types.js';
import type { LedgerEntry } from './ledger/types.js';
import type { NewOutboxMessage } from './outbox/types.js';

export const KEY_COLUMNS = 'id, kind, last4, email, balance, created_at, revoked_at';


/** The key row, locked until the transaction ends when `lock` is set. */
export const keyRow = (t: Tx, id: number, lock = false): Promise<KeyRow | undefined> =>
  t.one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);

export const keyRecord = async (t: Tx, id: number): Promise<ApiKeyRecord> => toKey((await keyRow(t, id))!);

export async function insertKeyRow(t: Tx, k: { kind: 'test' | 'live'; keyHash: string; last4: string; email: string | null; createdAt: string }): Promise<number> {
  const row = await t.one<{ id: number }>(`INSERT INTO api_keys (kind, key_hash, last4, email, balance, created_at)
    VALUES ($1, $2, $3, $4, 0, $5) RETURNING id`, [k.kind, k.keyHash, k.last4, k.email, k.createdAt]);
  return row!.id;
}

export const setBalance = (t: Tx, keyId: number, balance: number): Promise<number> =>
  t.run('UPDATE api_keys SET balance = $1 WHERE id = $2', [balance, keyId]);

export async function insertLedgerRow(t: Tx, e: {
  keyId: number; delta: number; reason: LedgerEntry['reason']; requestId: string | null; clientRequestId?: string | null; refundOf: number | null; createdAt: string;
}): Promise<number> {
  const row = await t.one<{ id: number }>(`INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, [e.keyId, e.delta, e.reason, e.requestId, e.clientRequestId ?? null, e.refundOf, e.createdAt]);
  return row!.id;
}

/** Credits a live key (decideCredit, under the key's row lock) with its ledger row. */
export async function creditRow(t: Tx, keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, createdAt: string): Promise<{ ledgerId: number; balance: number }> {
  const balance = decideCredit(balanceHolder(await keyRow(t, keyId, true)), keyId, stops);
  await setBalance(t, keyId, balance);
  const ledgerId = await insertLedgerRow(t, { keyId, delta: stops, reason, requestId, refundOf: null, createdAt });
  return { ledgerId, balance };
}

/**
 * The refund row first: UNIQUE (refund_of) lets exactly one transaction give a debit back, whoever tries.
 * Returns the new balance, or null when the debit had already been refunded.
 */
export async function refundRow(t: Tx, refund: RefundEntry, createdAt: string): Promise<number | null> {
  const inserted = await t.one<{ id: number }>(`INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (refund_of) DO NOTHING RETURNING id`,
  [refund.keyId, refund.delta, refund.reason, refund.requestId, refund.clientRequestId, refund.refundOf, createdAt]);
  if (!inserted) return null;
  const row = await t.one<{ balance: number }>('UPDATE api_keys SET balance = balance + $1 WHERE id = $2 RETURNING balance', [refund.delta, refund.keyId]);
  return row!.balance;
}

/** Pending debits with their ledger row and their owner's lease, as the sweep and `db check` read them. */
export const PENDING_DEBITS_SQL = `SELECT p.debit_id AS id, p.owner, p.expires_at_ms, ${OWNER_LEASE_COLUMNS}
  FROM pending_debits p ${joinOwnerLease('p')}`;
export type PendingDebitRow = OwnerLeaseColumns & { id: number };

/** Gives back locked pending debits (inside a transaction); a debit already refunded is only unmarked. */
export async function giveBack(t: Tx, ids: number[], now: Date): Promise<RecoveryReport['refunded']> {
  if (ids.length === 0) return [];
  const debits = await t.rows<{ id: number; keyId: number; delta: number; requestId: string | null; clientRequestId: string | null; owner: string }>(
    `DELETE FROM pending_debits p USING ledger l WHERE p.debit_id = ANY($1::bigint[]) AND l.id = p.debit_id
    RETURNING l.id AS id, l.key_id AS "keyId", l.delta AS delta, l.request_id AS "requestId", l.client_request_id AS "clientRequestId", p.owner AS owner`, [ids]);
  debits.sort((a, b) => a.id - b.id);
  const createdAt = now.toISOString();
  const refunded: RecoveryReport['refunded'] = [];
  for (const d of debits) {
    if (await refundRow(t, refundOf(d), createdAt) !== null) refunded.push({ debitId: d.id, keyId: d.keyId, stops: -d.delta, requestId: d.requestId, owner: d.owner });
  }
  return refunded;
}

export async function insertOutboxRow(t: Tx, message: NewOutboxMessage, keyId: number | null, now: string): Promise<number> {
  const row = await t.one<{ id: number }>(`INSERT INTO outbox (kind, to_address, subject, body, key_id, created_at, next_attempt_at)
    VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`, [message.kind, message.to, message.subject, message.body, keyId, now]);
  return row!.id;
}
