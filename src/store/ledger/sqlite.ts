/** The ledger subject on SQLite: each write is one IMMEDIATE transaction, so what it read is what it writes over. */
import { decideDebit, decideRefund } from '../../billing/rules/charges.js';
import type { SqliteDb } from '../sqlite-db.js';
import { balanceHolder, creditRow, insertLedgerRow, isRefunded, keyRow, readBalance, refundRow, setBalance } from '../sqlite-rows.js';
import { toDebitEntry, toLedgerEntry, type LedgerRow } from '../rows.js';
import type { DebitOutcome, LedgerEntry, LedgerStore, PendingMark, RefundOutcome, SettleCharge } from './types.js';

/** Thrown inside a transaction to roll it back when a charge can no longer be settled. */
class NotSettled extends Error {}

export function sqliteLedger(d: SqliteDb): LedgerStore {
  return {
    async credit(keyId, stops, reason, requestId, now): Promise<number> {
      return d.write(() => creditRow(d, keyId, stops, reason, requestId, now.toISOString()).balance);
    },

    async debit(keyId: number, stops: number, requestId: string, now: Date, pending: PendingMark, clientRequestId: string | null = null): Promise<DebitOutcome> {
      return d.write((): DebitOutcome => {
        const decision = decideDebit(balanceHolder(keyRow(d, keyId)), stops);
        if (!decision.ok) return decision;
        setBalance(d, keyId, decision.balance);
        const debitId = insertLedgerRow(d, { keyId, delta: -stops, reason: 'debit', requestId, clientRequestId, refundOf: null, createdAt: now.toISOString() });
        d.run('INSERT INTO pending_debits (debit_id, expires_at_ms, owner) VALUES (?, ?, ?)', debitId, pending.untilMs, pending.owner);
        return { ok: true, debitId, balance: decision.balance };
      });
    },

    async refund(debitId: number, now: Date): Promise<RefundOutcome> {
      return d.write((): RefundOutcome => {
        const row = d.get<LedgerRow>('SELECT * FROM ledger WHERE id = ?', debitId);
        const refund = decideRefund(toDebitEntry(row), debitId, isRefunded(d, debitId));
        if (refund === null) return { refunded: false, balance: readBalance(d, row!.key_id)! };
        return { refunded: true, balance: refundRow(d, refund, now.toISOString()) };
      });
    },

    async settleCharge(c: SettleCharge): Promise<boolean> {
      // all or nothing: a debit settled while its Idempotency-Key claim was taken over would charge a call that answers 502
      try {
        await d.write((): void => {
          if (c.debitId !== undefined && d.run('DELETE FROM pending_debits WHERE debit_id = ?', c.debitId).changes !== 1) throw new NotSettled();
          if (c.sandboxReservationId !== undefined
            && d.run(`UPDATE sandbox_calls SET state = 'consumed' WHERE id = ? AND state = 'reserved'`, c.sandboxReservationId).changes !== 1) throw new NotSettled();
          const i = c.idempotency;
          if (i && d.run(`UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
            WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`, i.status, i.body, i.keyId, i.idempotencyKey).changes !== 1) throw new NotSettled();
        });
        return true;
      } catch (err) {
        if (err instanceof NotSettled) return false;
        throw err;
      }
    },

    async ledger(keyId: number): Promise<LedgerEntry[]> {
      const rows = await d.attempt(() => d.all<LedgerRow>('SELECT * FROM ledger WHERE key_id = ? ORDER BY id', keyId));
      return rows.map(toLedgerEntry);
    },
  };
}
