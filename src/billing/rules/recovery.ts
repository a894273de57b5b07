/**
 * What the recovery sweep and `db check` decide about charges and leases, as pure functions. A charge is a
 * pending debit, a sandbox reservation or an Idempotency-Key claim, stamped with its owner instance and a
 * deadline; the stores read each pending charge with its owner's lease row and execute what these decide.
 */

/** A pending charge as the rules read it. */
export interface PendingCharge {
  owner: string | null;
  expiresAtMs: number | null;
}

/** The owner's lease row, or null when the owner has none (charges written before leases existed). */
export interface OwnerLease {
  endedAtMs: number | null;
  expiresAtMs: number;
}

const pastDeadline = (c: PendingCharge, nowMs: number): boolean => c.expiresAtMs !== null && c.expiresAtMs <= nowMs;

/**
 * A charge whose call can no longer complete, as the sweeper `self` sees it at `nowMs`: its owner's lease has
 * ended, or it is past its deadline and its owner is the sweeper itself or an owner without a lease row. A live
 * lease's charges are left to their owner; an expired one's wait until a sweep ends that lease.
 */
export function chargeIsGone(c: PendingCharge, lease: OwnerLease | null, nowMs: number, self: string): boolean {
  if (lease !== null && lease.endedAtMs !== null) return true;
  return pastDeadline(c, nowMs) && (c.owner === self || lease === null);
}

/** What `db check` counts as stale: past its deadline, or its owner's lease expired or ended. */
export function chargeIsStale(c: PendingCharge, lease: OwnerLease | null, nowMs: number): boolean {
  return pastDeadline(c, nowMs) || (lease !== null && (lease.endedAtMs !== null || lease.expiresAtMs <= nowMs));
}

/** An Idempotency-Key claim whose call died (past its deadline, or its instance's lease ended): it may be claimed again. */
export function claimIsDead(c: PendingCharge, lease: OwnerLease | null, nowMs: number): boolean {
  return pastDeadline(c, nowMs) || (lease !== null && lease.endedAtMs !== null);
}

/** A lease not renewed by its expiry and not yet ended: the next sweep of any instance settles it. */
export const leaseHasExpired = (lease: OwnerLease, nowMs: number): boolean =>
  lease.endedAtMs === null && lease.expiresAtMs <= nowMs;

/** How long ended leases stay listed before the sweep deletes them. */
export const ENDED_LEASE_RETENTION_MS = 7 * 86_400_000;

/**
 * live: renewed in time. expired: not renewed by its expiry (the instance died or stalls); the next
 * recovery sweep settles it. settled: another instance (or `db recover`) ended it and gave its charges
 * back. released: its instance shut down cleanly.
 */
export type LeaseState = 'live' | 'expired' | 'settled' | 'released';

/** An ended lease is what ended it; an open one is live until its expiry. */
export const leaseState = (
  lease: OwnerLease & { endReason: 'released' | 'settled' | null },
  nowMs: number,
): LeaseState => lease.endReason ?? (lease.expiresAtMs <= nowMs ? 'expired' : 'live');

/** What an instance still holds. */
export interface Holdings {
  pendingDebits: number;
  sandboxReservations: number;
  idempotencyClaims: number;
}

/** A lease that is no longer live but still holds charges or claims: `db check` is not clean until a sweep settles them. */
export const holdsWhileGone = (l: Holdings & { state: LeaseState }): boolean =>
  l.state !== 'live' && l.pendingDebits + l.sandboxReservations + l.idempotencyClaims > 0;

/** `db check` passes with no balance mismatch, nothing stale pending, and no gone lease still holding anything. */
export const integrityOk = (r: {
  mismatches: unknown[];
  expiredPendingDebits: number;
  expiredSandboxReservations: number;
  leases: Array<Holdings & { state: LeaseState }>;
}): boolean =>
  r.mismatches.length === 0 &&
  r.expiredPendingDebits === 0 &&
  r.expiredSandboxReservations === 0 &&
  !r.leases.some(holdsWhileGone);

/** `db check` lists the leases not yet ended, and ended ones that still hold something. */
export const leaseIsReported = (l: Holdings & { endedAtMs: number | null }): boolean =>
  l.endedAtMs === null || l.pendingDebits + l.sandboxReservations + l.idempotencyClaims > 0;

/** Every balance is the sum of its key's ledger: a key where they differ is a mismatch. */
export const ledgerDisagrees = (k: { balance: number; ledgerSum: number }): boolean =>
  Number(k.balance) !== Number(k.ledgerSum);
