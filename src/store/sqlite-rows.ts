/**
 * Row writes that several SQLite subjects share inside their transactions (a key, a ledger row with its balance,
 * an outbox row). Each runs inside the caller's transaction; what to write is decided by src/billing/rules.
 */
import { decideCredit, refundOf, type RefundEntry } from '../billing/rules/charges.js';
import { OWNER_LEASE_COLUMNS, joinOwnerLease, type OwnerLeaseColumns } from './owner-lease.js';
import { balanceHolder, toKey, type KeyRow } from './rows.js';

export { balanceHolder };
import type { SqliteDb } from './sqlite-db.js';
import type { ApiKeyRecord } from './keys/types.js';
import type { LedgerEntry } from './ledger/types.js';
import type { NewOutboxMessage } from './outbox/types.js';
import type { RecoveryReport } from './leases/types.js';

export const keyRow = (d: SqliteDb, id: number): KeyRow | undefined => d.get<KeyRow>('SELECT * FROM api_keys WHERE id = ?', id);
export const keyRecord = (d: SqliteDb, id: number): ApiKeyRecord => toKey(keyRow(d, id)!);

export function insertKeyRow(d: SqliteDb, k: { kind: 'test' | 'live'; keyHash: string; last4: string; email: string | null; createdAt: string }): number {
  return d.run(`INSERT INTO api_keys (kind, key_hash, last4, email, balance, created_at)
    VALUES (@kind, @keyHash, @last4, @email, 0, @createdAt)`, k).id;
}

export const setBalance = (d: SqliteDb, keyId: number, balance: number): void => {
  d.run('UPDATE api_keys SET balance = ? WHERE id = ?', balance, keyId);
};

export const readBalance = (d: SqliteDb, keyId: number): number | undefined =>
  d.get<{ balance: number }>('SELECT balance FROM api_keys WHERE id = ?', keyId)?.balance;

export function insertLedgerRow(d: SqliteDb, e: {
  keyId: number; delta: number; reason: LedgerEntry['reason']; requestId: string | null; clientRequestId: string | null; refundOf: number | null; createdAt: string;
}): number {
  return d.run(`INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
    VALUES (@keyId, @delta, @reason, @requestId, @clientRequestId, @refundOf, @createdAt)`, e).id;
}

/** Credits a live key (decideCredit) with its ledger row. */
export function creditRow(d: SqliteDb, keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, createdAt: string): { ledgerId: number; balance: number } {
  const balance = decideCredit(balanceHolder(keyRow(d, keyId)), keyId, stops);
  setBalance(d, keyId, balance);
  const ledgerId = insertLedgerRow(d, { keyId, delta: stops, reason, requestId, clientRequestId: null, refundOf: null, createdAt });
  return { ledgerId, balance };
}

export const isRefunded = (d: SqliteDb, debitId: number): boolean => d.get('SELECT id FROM ledger WHERE refund_of = ?', debitId) !== undefined;

/** Writes a refund row (decided by decideRefund or refundOf) and gives its stops back; returns the new balance. */
export function refundRow(d: SqliteDb, refund: RefundEntry, createdAt: string): number {
  d.run('DELETE FROM pending_debits WHERE debit_id = ?', refund.refundOf);
  const balance = readBalance(d, refund.keyId)! + refund.delta;
  setBalance(d, refund.keyId, balance);
  insertLedgerRow(d, { ...refund, createdAt });
  return balance;
}

/** Pending debits as the recovery sweep reads them: the debit's ledger row and its pending mark. */
export const PENDING_DEBITS_SQL = `SELECT p.debit_id AS id, l.key_id AS keyId, l.delta AS delta, l.request_id AS requestId,
  l.client_request_id AS clientRequestId, p.owner AS owner, p.expires_at_ms AS expires_at_ms, ${OWNER_LEASE_COLUMNS}
  FROM pending_debits p JOIN ledger l ON l.id = p.debit_id ${joinOwnerLease('p')}`;
export interface PendingDebitRow extends OwnerLeaseColumns {
  id: number; keyId: number; delta: number; requestId: string | null; clientRequestId: string | null; owner: string;
}

/** Gives pending debits back (inside a transaction); a debit already refunded is only unmarked. */
export function giveBack(d: SqliteDb, pending: PendingDebitRow[], now: Date): RecoveryReport['refunded'] {
  const createdAt = now.toISOString();
  const refunded: RecoveryReport['refunded'] = [];
  for (const debit of pending) {
    d.run('DELETE FROM pending_debits WHERE debit_id = ?', debit.id);
    if (isRefunded(d, debit.id)) continue;
    refundRow(d, refundOf(debit), createdAt);
    refunded.push({ debitId: debit.id, keyId: debit.keyId, stops: -debit.delta, requestId: debit.requestId, owner: debit.owner });
  }
  return refunded;
}

export function insertOutboxRow(d: SqliteDb, message: NewOutboxMessage, keyId: number | null, now: string): number {
  return d.run(`INSERT INTO outbox (kind, to_address, subject, body, key_id, created_at, next_attempt_at)
    VALUES (@kind, @to, @subject, @body, @keyId, @now, @now)`, { kind: message.kind, to: message.to, subject: message.subject, body: message.body, keyId, now }).id;
}
