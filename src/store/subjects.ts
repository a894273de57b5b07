/** The subjects, composed: each written once over the SqlDb seam, whichever database runs them. */
import { chargeStore } from './charges/store.js';
import { geocodeCacheStore } from './geocode-cache/store.js';
import { idempotencyStore } from './idempotency/store.js';
import { jobStore } from './jobs/store.js';
import { keyStore } from './keys/store.js';
import { leaseStore } from './leases/store.js';
import { ledgerStore } from './ledger/store.js';
import { outboxStore } from './outbox/store.js';
import { paymentStore } from './payments/store.js';
import { sandboxStore } from './sandbox/store.js';
import type { SqlDb } from './sql.js';
import type { DatabaseStore, Store } from './types.js';

/** Everything a store does but what concerns the database as a whole (DatabaseStore). */
export type Subjects = Omit<Store, keyof DatabaseStore>;

/** Every subject's store on one database. */
export const subjectStores = (db: SqlDb): Subjects => ({
  ...keyStore(db),
  ...ledgerStore(db),
  ...chargeStore(db),
  ...sandboxStore(db),
  ...idempotencyStore(db),
  ...leaseStore(db),
  ...paymentStore(db),
  ...outboxStore(db),
  ...geocodeCacheStore(db),
  ...jobStore(db),
});
