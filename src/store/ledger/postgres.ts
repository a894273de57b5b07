/** The ledger subject on PostgreSQL: the key row is locked (FOR UPDATE) before a rule reads its balance. */
import { decideDebit, decideRefund } from '../../billing/rules/charges.js';
import { NotSettled, type PgDb } from '../postgres-db.js';
import { balanceHolder, creditRow, insertLedgerRow, keyRow, refundRow, setBalance } from '../postgres-rows.js';
import { toDebitEntry, toLedgerEntry, type LedgerRow } from '../rows.js';
import type { DebitOutcome, LedgerEntry, LedgerStore, PendingMark, RefundOutcome, SettleCharge } from './types.js';

export function postgresLedger(db: PgDb): LedgerStore {
  return {
    async credit(keyId, stops, reason, requestId, now): Promise<number> {
      return db.tx(async (t) => (await creditRow(t, keyId, stops, reason, requestId, now.toISOString())).balance);
    },

    async debit(keyId: number, stops: number, requestId: string, now: Date, pending: PendingMark, clientRequestId: string | null = null): Promise<DebitOutcome> {
      return db.tx(async (t): Promise<DebitOutcome> => {
        // a concurrent debit of the same key waits for our row lock, then reads the balance we left
        const decision = decideDebit(balanceHolder(await keyRow(t, keyId, true)), stops);
        if (!decision.ok) return decision;
        await setBalance(t, keyId, decision.balance);
        const debitId = await insertLedgerRow(t, { keyId, delta: -stops, reason: 'debit', requestId, clientRequestId, refundOf: null, createdAt: now.toISOString() });
        await t.run('INSERT INTO pending_debits (debit_id, expires_at_ms, owner) VALUES ($1, $2, $3)', [debitId, pending.untilMs, pending.owner]);
        return { ok: true, debitId, balance: decision.balance };
      });
    },

    async refund(debitId: number, now: Date): Promise<RefundOutcome> {
      return db.tx(async (t): Promise<RefundOutcome> => {
        const row = await t.one<LedgerRow>('SELECT * FROM ledger WHERE id = $1', [debitId]);
        // "once" is the UNIQUE (refund_of) of the refund row: a concurrent refund that wins makes ours insert nothing
        const refund = decideRefund(toDebitEntry(row), debitId, false)!;
        await t.run('DELETE FROM pending_debits WHERE debit_id = $1', [debitId]);
        const balance = await refundRow(t, refund, now.toISOString());
        if (balance === null) return { refunded: false, balance: (await keyRow(t, refund.keyId))!.balance };
        return { refunded: true, balance };
      });
    },

    async settleCharge(c: SettleCharge): Promise<boolean> {
      // each step is a conditional write racing the recovery sweep's own: whichever commits first wins, the other changes nothing;
      // all or nothing: a debit settled while its Idempotency-Key claim was taken over would charge a call that answers 502
      try {
        await db.tx(async (t): Promise<void> => {
          if (c.debitId !== undefined && await t.run('DELETE FROM pending_debits WHERE debit_id = $1', [c.debitId]) !== 1) throw new NotSettled();
          if (c.sandboxReservationId !== undefined
            && await t.run(`UPDATE sandbox_calls SET state = 'consumed' WHERE id = $1 AND state = 'reserved'`, [c.sandboxReservationId]) !== 1) throw new NotSettled();
          const i = c.idempotency;
          if (i && await t.run(`UPDATE idempotency_keys SET state = 'done', response_status = $1, response_body = $2
            WHERE key_id = $3 AND idempotency_key = $4 AND state = 'pending'`, [i.status, i.body, i.keyId, i.idempotencyKey]) !== 1) throw new NotSettled();
        });
        return true;
      } catch (err) {
        if (err instanceof NotSettled) return false;
        throw err;
      }
    },

    async ledger(keyId: number): Promise<LedgerEntry[]> {
      const { rows } = await db.q<LedgerRow>('SELECT id, key_id, delta, reason, request_id, client_request_id, refund_of, created_at FROM ledger WHERE key_id = $1 ORDER BY id', [keyId]);
      return rows.map(toLedgerEntry);
    },
  };
}
