/** The ledger subject: balances, debits and refunds. Every balance change has its ledger row. */
export type LedgerReason = 'purchase' | 'debit' | 'refund' | 'admin_credit';

export type DebitOutcome = { ok: true; debitId: number; balance: number } | { ok: false; balance: number };

export interface RefundOutcome {
  /** False when this debit had already been refunded (refunds happen exactly once). */
  refunded: boolean;
  balance: number;
}

export interface LedgerEntry {
  id: number;
  keyId: number;
  delta: number;
  reason: LedgerReason;
  /** The service's own id of the call (debits, refunds), the Stripe session (purchases), or an admin tag. */
  requestId: string | null;
  /** The caller's X-Request-Id for that call, when it sent one: echoed and logged, never used as the id. */
  clientRequestId: string | null;
  refundOf: number | null;
  createdAt: string;
}

/** How long a charge may stay unsettled, and which service instance holds it. */
export interface PendingMark {
  untilMs: number;
  owner: string;
}

export interface LedgerStore {
  /** Adds stops to a live key with a ledger row; returns the new balance. */
  credit(
    keyId: number,
    stops: number,
    reason: 'purchase' | 'admin_credit',
    requestId: string | null,
    now: Date,
  ): Promise<number>;
  /**
   * One conditional update: debits only if the balance covers every stop. The
   * debit stays pending until settled or refunded; the recovery sweep refunds it
   * once its owner's lease has ended (or its owner's own sweep, past `pending.untilMs`).
   */
  debit(
    keyId: number,
    stops: number,
    requestId: string,
    now: Date,
    pending: PendingMark,
    clientRequestId?: string | null,
  ): Promise<DebitOutcome>;
  /** Gives a debit back, at most once per debit (and clears its pending mark). */
  refund(debitId: number, now: Date): Promise<RefundOutcome>;
  ledger(keyId: number): Promise<LedgerEntry[]>;
}
