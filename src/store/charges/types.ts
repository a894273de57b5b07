import type { NewJob } from '../jobs/types.js';
import type { PendingMark } from '../ledger/types.js';

/** The settling of a paid call's charges: what several subjects hold for one call, made final together. */
export interface SettleCharge {
  debitId?: number;
  sandboxReservationId?: number;
  /** `claim`: the call's own claim of the key (its owner and deadline), so that a claim taken over is not completed. */
  idempotency?: { keyId: number; idempotencyKey: string; claim: PendingMark; status: number; body: string };
  /** An asynchronous plan: its job is created with the charge made final, so a job exists exactly when it is paid for. */
  job?: NewJob;
}

export interface ChargeStore {
  /**
   * Makes a call's charge final, together with its Idempotency-Key response if
   * any, in one transaction: all of it or nothing. False when the charge is no
   * longer pending (the recovery sweep gave it back): the call must then fail.
   */
  settleCharge(charge: SettleCharge): Promise<boolean>;
}
