/**
 * Settling a call's charges: no table of its own. It asks each subject that holds part of the call (the ledger's
 * pending debit, the sandbox's reservation, the Idempotency-Key's claim) to make its part final, in one transaction.
 */
import { completeClaim } from '../idempotency/store.js';
import { insertJob } from '../jobs/store.js';
import { settleDebit } from '../ledger/store.js';
import { consumeReservation } from '../sandbox/store.js';
import type { SqlDb, Work } from '../sql.js';
import type { ChargeStore, SettleCharge } from './types.js';

/** Thrown inside the transaction to roll it back when a part of the charge can no longer be settled. */
class NotSettled extends Error {}

export function chargeStore(db: SqlDb): ChargeStore {
  return {
    async settleCharge(c: SettleCharge): Promise<boolean> {
      // each step is a conditional write racing the recovery sweep's own: whichever commits first wins, the other changes nothing;
      // all or nothing: a debit settled while its Idempotency-Key claim was taken over would charge a call that answers 502
      try {
        await db.write(function* (): Work<void> {
          if (c.debitId !== undefined && !(yield* settleDebit(c.debitId))) throw new NotSettled();
          if (c.sandboxReservationId !== undefined && !(yield* consumeReservation(c.sandboxReservationId)))
            throw new NotSettled();
          if (c.idempotency && !(yield* completeClaim(c.idempotency))) throw new NotSettled();
          if (c.job) yield* insertJob(c.job);
        });
        return true;
      } catch (err) {
        if (err instanceof NotSettled) return false;
        throw err;
      }
    },
  };
}
