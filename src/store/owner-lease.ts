/**
 * The subjects holding a call's charges (ledger, sandbox, idempotency) read each pending one with its owner's lease
 * row (LEFT JOIN instance_leases x ON x.instance_id = <charge>.owner) and let src/billing/rules/recovery.ts decide
 * what becomes of it.
 */
import type { OwnerLease, PendingCharge } from '../billing/rules/recovery.js';

export const OWNER_LEASE_COLUMNS =
  'x.instance_id AS lease_id, x.ended_at_ms AS lease_ended_at_ms, x.expires_at_ms AS lease_expires_at_ms';
export const joinOwnerLease = (t: string): string => `LEFT JOIN instance_leases x ON x.instance_id = ${t}.owner`;

export interface OwnerLeaseColumns {
  owner: string | null;
  expires_at_ms: number | null;
  lease_id: string | null;
  lease_ended_at_ms: number | null;
  lease_expires_at_ms: number | null;
}

export const chargeOf = (row: OwnerLeaseColumns): PendingCharge => ({
  owner: row.owner,
  expiresAtMs: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
});

export const ownerLeaseOf = (row: OwnerLeaseColumns): OwnerLease | null =>
  row.lease_id === null
    ? null
    : {
        endedAtMs: row.lease_ended_at_ms === null ? null : Number(row.lease_ended_at_ms),
        expiresAtMs: Number(row.lease_expires_at_ms),
      };
