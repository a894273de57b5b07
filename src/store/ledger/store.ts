/**
 * The ledger subject, once for both databases: it writes `ledger`, `pending_debits` and the balance of
 * `api_keys`, each balance change with its ledger row. A rule of src/billing/rules reads the key row (locked on
 * PostgreSQL) and decides; a refund is "once" by its row's UNIQUE (refund_of). Its row functions run inside other
 * subjects' transactions (keys, payments, the charges' settling, the leases' sweep).
 */
import { decideCredit, decideDebit, decideRefund, refundOf, type RefundEntry } from '../../billing/rules/charges.js';
import { OWNER_LEASE_COLUMNS, joinOwnerLease, type OwnerLeaseColumns } from '../owner-lease.js';
import { balanceHolder, toDebitEntry, toLedgerEntry, type LedgerRow } from '../rows.js';
import { keyRow } from '../keys/rows.js';
import { one, placeholders, rows, run, type Dialect, type SqlDb, type Work } from '../sql.js';
import type { RecoveryReport } from '../leases/types.js';
import type { DebitOutcome, LedgerEntry, LedgerReason, LedgerStore, PendingMark, RefundOutcome } from './types.js';

const setBalance = (keyId: number, balance: number): Work<number> =>
  run('UPDATE api_keys SET balance = $1 WHERE id = $2', [balance, keyId]);

function* insertLedgerRow(e: {
  keyId: number;
  delta: number;
  reason: LedgerReason;
  requestId: string | null;
  clientRequestId: string | null;
  refundOf: number | null;
  createdAt: string;
}): Work<number> {
  const row = yield* one<{ id: number }>(
    `INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [e.keyId, e.delta, e.reason, e.requestId, e.clientRequestId, e.refundOf, e.createdAt],
  );
  return row!.id;
}

/** Credits a live key (decideCredit, under the key's row lock) with its ledger row. */
export function* creditKey(
  d: Dialect,
  keyId: number,
  stops: number,
  reason: 'purchase' | 'admin_credit',
  requestId: string | null,
  createdAt: string,
): Work<{ ledgerId: number; balance: number }> {
  const balance = decideCredit(balanceHolder(yield* keyRow(d, keyId, true)), keyId, stops);
  yield* setBalance(keyId, balance);
  const ledgerId = yield* insertLedgerRow({
    keyId,
    delta: stops,
    reason,
    requestId,
    clientRequestId: null,
    refundOf: null,
    createdAt,
  });
  return { ledgerId, balance };
}

/** Takes stops a rule has already decided on (a key replacement moving its balance) off a key, with its ledger row. */
export function* withdrawKey(
  keyId: number,
  stops: number,
  reason: LedgerReason,
  requestId: string,
  createdAt: string,
): Work<void> {
  yield* run('UPDATE api_keys SET balance = balance - $1 WHERE id = $2', [stops, keyId]);
  yield* insertLedgerRow({ keyId, delta: -stops, reason, requestId, clientRequestId: null, refundOf: null, createdAt });
}

/**
 * The refund row first: UNIQUE (refund_of) lets exactly one transaction give a debit back, whoever tries. Clears
 * the debit's pending mark. Returns the new balance, or null when the debit had already been refunded.
 */
function* refundRow(refund: RefundEntry, createdAt: string): Work<number | null> {
  yield* run('DELETE FROM pending_debits WHERE debit_id = $1', [refund.refundOf]);
  const inserted = yield* one<{ id: number }>(
    `INSERT INTO ledger (key_id, delta, reason, request_id, client_request_id, refund_of, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (refund_of) DO NOTHING RETURNING id`,
    [refund.keyId, refund.delta, refund.reason, refund.requestId, refund.clientRequestId, refund.refundOf, createdAt],
  );
  if (!inserted) return null;
  const row = yield* one<{ balance: number }>(
    'UPDATE api_keys SET balance = balance + $1 WHERE id = $2 RETURNING balance',
    [refund.delta, refund.keyId],
  );
  return row!.balance;
}

/** Gives a debit back, settled or pending, at most once (the ledger's UNIQUE (refund_of)). */
export function* refundDebit(d: Dialect, debitId: number, now: Date): Work<RefundOutcome> {
  const refund = decideRefund(
    toDebitEntry(yield* one<LedgerRow>('SELECT * FROM ledger WHERE id = $1', [debitId])),
    debitId,
    false,
  )!;
  // "once" is the UNIQUE (refund_of) of the refund row: a refund that came first makes ours insert nothing
  const balance = yield* refundRow(refund, now.toISOString());
  if (balance === null) return { refunded: false, balance: (yield* keyRow(d, refund.keyId))!.balance };
  return { refunded: true, balance };
}

/** Makes a debit final: its pending mark goes. False when it was no longer pending (the sweep gave it back). */
export function* settleDebit(debitId: number): Work<boolean> {
  return (yield* run('DELETE FROM pending_debits WHERE debit_id = $1', [debitId])) === 1;
}

/** A pending debit with its owner's lease, as the sweep and `db check` read it. */
export type PendingDebitRow = OwnerLeaseColumns & { id: number };

export const pendingDebits = (): Work<PendingDebitRow[]> =>
  rows<PendingDebitRow>(`SELECT p.debit_id AS id, p.owner, p.expires_at_ms, ${OWNER_LEASE_COLUMNS}
  FROM pending_debits p ${joinOwnerLease('p')} ORDER BY p.debit_id`);

/**
 * Gives pending debits back, in id order; a debit another transaction holds right now (being settled, or swept by
 * another instance) is left to it, and one already refunded is only unmarked.
 */
export function* giveBackDebits(d: Dialect, ids: number[], now: Date): Work<RecoveryReport['refunded']> {
  if (ids.length === 0) return [];
  const locked = yield* rows<{ debit_id: number }>(
    `SELECT debit_id FROM pending_debits WHERE debit_id IN (${placeholders(ids.length)})
    ORDER BY debit_id${d.skipLocked}`,
    ids,
  );
  const createdAt = now.toISOString();
  const refunded: RecoveryReport['refunded'] = [];
  for (const { debit_id: id } of locked) {
    const mark = yield* one<{ owner: string }>('DELETE FROM pending_debits WHERE debit_id = $1 RETURNING owner', [id]);
    if (!mark) continue;
    const debit = toDebitEntry(yield* one<LedgerRow>('SELECT * FROM ledger WHERE id = $1', [id]))!;
    if ((yield* refundRow(refundOf(debit), createdAt)) !== null) {
      refunded.push({
        debitId: id,
        keyId: debit.keyId,
        stops: -debit.delta,
        requestId: debit.requestId,
        owner: mark.owner,
      });
    }
  }
  return refunded;
}

export function ledgerStore(db: SqlDb): LedgerStore {
  const d = db.dialect;
  return {
    async credit(keyId, stops, reason, requestId, now): Promise<number> {
      return db.write(function* () {
        return (yield* creditKey(d, keyId, stops, reason, requestId, now.toISOString())).balance;
      });
    },

    async debit(
      keyId: number,
      stops: number,
      requestId: string,
      now: Date,
      pending: PendingMark,
      clientRequestId: string | null = null,
    ): Promise<DebitOutcome> {
      return db.write(function* (): Work<DebitOutcome> {
        // a concurrent debit of the same key waits for our row lock, then reads the balance we left
        const decision = decideDebit(balanceHolder(yield* keyRow(d, keyId, true)), stops);
        if (!decision.ok) return decision;
        yield* setBalance(keyId, decision.balance);
        const debitId = yield* insertLedgerRow({
          keyId,
          delta: -stops,
          reason: 'debit',
          requestId,
          clientRequestId,
          refundOf: null,
          createdAt: now.toISOString(),
        });
        yield* run('INSERT INTO pending_debits (debit_id, expires_at_ms, owner) VALUES ($1, $2, $3)', [
          debitId,
          pending.untilMs,
          pending.owner,
        ]);
        return { ok: true, debitId, balance: decision.balance };
      });
    },

    async refund(debitId: number, now: Date): Promise<RefundOutcome> {
      return db.write(function* (): Work<RefundOutcome> {
        return yield* refundDebit(d, debitId, now);
      });
    },

    async ledger(keyId: number): Promise<LedgerEntry[]> {
      return (await db.rows<LedgerRow>('SELECT * FROM ledger WHERE key_id = $1 ORDER BY id', [keyId])).map(
        toLedgerEntry,
      );
    },
  };
}
