/** The leases subject: each process's instance lease, the recovery sweep and the integrity check. */
import type { LeaseState } from '../../billing/rules/recovery.js';

export type { LeaseState };

/** A service process as its lease row names it. */
export interface LeaseHolder {
  /** Random, taken at each process start. */
  instanceId: string;
  host: string;
  pid: number;
  /** The HTTP port it serves. */
  port: number;
}

export interface LeaseStatus extends LeaseHolder {
  state: LeaseState;
  startedAt: string;
  heartbeatAt: string;
  expiresAt: string;
  endedAt: string | null;
  /** Who settled it: an instance id, or 'admin'. */
  endedBy: string | null;
  /** What it still holds. */
  pendingDebits: number;
  pendingStops: number;
  sandboxReservations: number;
  idempotencyClaims: number;
}

export interface RecoveryRequest {
  now: Date;
  /** Who sweeps: the calling instance's id, or 'admin' (the CLI). */
  by: string;
  /** The sweeping instance renews its own lease until this instant, in the same transaction. */
  renewUntilMs?: number;
}

export interface RecoveryReport {
  refunded: Array<{ debitId: number; keyId: number; stops: number; requestId: string | null; owner: string }>;
  releasedSandbox: number;
  releasedIdempotencyClaims: number;
  /** Leases this sweep found expired and ended: their charges are given back in the same transaction. */
  settledLeases: Array<LeaseHolder & { heartbeatAt: string }>;
  /**
   * With `renewUntilMs`: false when the sweeper's own lease had already been ended by another instance
   * (it stalled past its expiry and its charges were given back): it must take a new lease.
   */
  renewed?: boolean;
}

export interface IntegrityReport {
  keysChecked: number;
  /** Keys whose balance differs from the sum of their ledger. */
  mismatches: Array<{ keyId: number; balance: number; ledgerSum: number }>;
  /** Pending debits whose call can no longer complete: their instance's lease expired or ended, or past their deadline. */
  expiredPendingDebits: number;
  expiredSandboxReservations: number;
  /** Leases not yet ended (live or expired), and ended ones that still hold something. */
  leases: LeaseStatus[];
  /** No mismatch, nothing stale pending, and no lease that is gone (expired, settled, released) still holds anything. */
  ok: boolean;
}

export interface LeaseStore {
  /** Writes a new lease row, live until `untilMs`. */
  acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void>;
  /**
   * The recovery sweep, in ONE transaction: renews the sweeper's lease (`renewUntilMs`), ends every
   * lease past its expiry ('settled', under a row lock: two sweepers never both end one), then gives
   * back every pending charge whose call can no longer complete: those owned by an ended lease, those
   * of the sweeper past their deadline, and those of an owner without a lease row past their deadline.
   * Charges of a live lease are never touched by another instance.
   */
  recoverCharges(request: RecoveryRequest): Promise<RecoveryReport>;
  /** A clean shutdown, after draining: gives back anything the instance still holds and ends its lease 'released'. */
  releaseLease(instanceId: string, now: Date): Promise<RecoveryReport>;
  /** For every key, balance = sum of its ledger; nothing pending whose instance is gone or past its deadline; the leases. */
  checkIntegrity(now: Date): Promise<IntegrityReport>;
}
