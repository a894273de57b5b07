/**
 * The persistence contract, one interface per subject (keys, ledger, sandbox quotas, Idempotency-Key claims,
 * leases, checkout payments, outbox, geocode cache, asynchronous plans) and the settling of a call's charges across them, each
 * written once in its folder's store.ts over the SqlDb seam of sql.ts, which SQLite and PostgreSQL implement.
 * Every method is async so a networked store (PostgreSQL) can implement the same interface as the embedded SQLite
 * one. Every balance change happens together with its ledger row, atomically. The rules (when a debit is allowed,
 * what a refund gives back, how quotas count, what recovery gives back) are pure functions in src/billing/rules/:
 * a store reads, asks them, and executes their answer.
 */
import type { ChargeStore } from './charges/types.js';
import type { GeocodeCacheStore } from './geocode-cache/types.js';
import type { IdempotencyStore } from './idempotency/types.js';
import type { JobStore } from './jobs/types.js';
import type { KeyStore } from './keys/types.js';
import type { LeaseStore } from './leases/types.js';
import type { LedgerStore } from './ledger/types.js';
import type { OutboxStore } from './outbox/types.js';
import type { PaymentStore } from './payments/types.js';
import type { SandboxStore } from './sandbox/types.js';

export type * from './charges/types.js';
export type * from './geocode-cache/types.js';
export type * from './idempotency/types.js';
export type * from './jobs/types.js';
export type * from './keys/types.js';
export type * from './leases/types.js';
export type * from './ledger/types.js';
export type * from './outbox/types.js';
export type * from './payments/types.js';
export type * from './sandbox/types.js';

/** The database itself, whatever the subject. */
export interface DatabaseStore {
  readonly kind: 'sqlite' | 'postgres';
  close(): Promise<void>;
  /** An online, consistent copy of the database (SQLite backup API). */
  backup(destination: string): Promise<void>;
  /** Cheap liveness check of the database. */
  ping(): Promise<void>;
  /**
   * The readiness probe: rewrites one row with a payload larger than what a paid call writes, so it fails when
   * a call's write would (disk full, read-only, locked past a short wait). Throws the store's error.
   */
  probeWrite(now: Date): Promise<void>;
}

export interface Store
  extends
    DatabaseStore,
    KeyStore,
    LedgerStore,
    ChargeStore,
    SandboxStore,
    IdempotencyStore,
    LeaseStore,
    PaymentStore,
    OutboxStore,
    GeocodeCacheStore,
    JobStore {}

export { isStorageUnavailable } from '../storage-errors.js';
