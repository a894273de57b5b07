/** The leases subject on SQLite: the sweep reads each pending charge with its owner's lease; the rules decide. */
import { ENDED_LEASE_RETENTION_MS, chargeIsGone, chargeIsStale, leaseHasExpired } from '../../billing/rules/recovery.js';
import { chargeOf, ownerLeaseOf, type OwnerLeaseColumns } from '../owner-lease.js';
import type { LeaseRow } from '../rows.js';
import type { SqliteDb } from '../sqlite-db.js';
import { PENDING_DEBITS_SQL, giveBack, type PendingDebitRow } from '../sqlite-rows.js';
import {
  BALANCES_AND_LEDGER_SUMS_SQL, CLAIMS_SQL, LEASES_WITH_HOLDINGS_SQL, OPEN_LEASES_SQL, RESERVED_SQL, integrityReport, settledLease,
  type Claim, type OpenLeaseRow, type Reservation,
} from './holdings.js';
import type { IntegrityReport, LeaseHolder, LeaseStore, RecoveryReport, RecoveryRequest } from './types.js';



export function sqliteLeases(d: SqliteDb): LeaseStore {
  /** Releases the given sandbox reservations and Idempotency-Key claims; returns how many of each. */
  const release = (reservations: Reservation[], claims: Claim[]) => ({
    releasedSandbox: reservations.reduce((n, s) => n + d.run(`UPDATE sandbox_calls SET state = 'released' WHERE id = ? AND state = 'reserved'`, s.id).changes, 0),
    releasedIdempotencyClaims: claims.reduce((n, c) => n + d.run(`DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`,
      c.key_id, c.idempotency_key).changes, 0),
  });

  return {
    async acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void> {
      await d.attempt(() => d.run(`INSERT INTO instance_leases (instance_id, host, pid, port, started_at_ms, heartbeat_at_ms, expires_at_ms)
        VALUES (?, ?, ?, ?, ?, ?, ?)`, holder.instanceId, holder.host, holder.pid, holder.port, now.getTime(), now.getTime(), untilMs));
    },

    async recoverCharges(r: RecoveryRequest): Promise<RecoveryReport> {
      return d.write((): RecoveryReport => {
        const nowMs = r.now.getTime();
        // an ended lease is never renewed: its charges may already have been given back
        const renewed = r.renewUntilMs === undefined ? undefined : d.run(`UPDATE instance_leases SET heartbeat_at_ms = ?, expires_at_ms = ?
          WHERE instance_id = ? AND ended_at_ms IS NULL`, nowMs, r.renewUntilMs, r.by).changes === 1;
        const ended = d.all<OpenLeaseRow>(OPEN_LEASES_SQL).filter((l) => leaseHasExpired({ endedAtMs: null, expiresAtMs: l.expiresAtMs }, nowMs));
        for (const lease of ended) {
          d.run(`UPDATE instance_leases SET ended_at_ms = ?, end_reason = 'settled', ended_by = ? WHERE instance_id = ? AND ended_at_ms IS NULL`, nowMs, r.by, lease.instanceId);
        }
        const gone = (row: OwnerLeaseColumns) => chargeIsGone(chargeOf(row), ownerLeaseOf(row), nowMs, r.by);
        const refunded = giveBack(d, d.all<PendingDebitRow>(`${PENDING_DEBITS_SQL} ORDER BY p.debit_id`).filter(gone), r.now);
        const released = release(d.all<Reservation>(RESERVED_SQL).filter(gone), d.all<Claim>(CLAIMS_SQL).filter(gone));
        d.run('DELETE FROM instance_leases WHERE ended_at_ms IS NOT NULL AND ended_at_ms < ?', nowMs - ENDED_LEASE_RETENTION_MS);
        return { refunded, ...released, ...(renewed === undefined ? {} : { renewed }), settledLeases: ended.map(settledLease) };
      });
    },

    async releaseLease(instanceId: string, now: Date): Promise<RecoveryReport> {
      return d.write((): RecoveryReport => {
        d.run(`UPDATE instance_leases SET ended_at_ms = ?, end_reason = 'released', ended_by = ? WHERE instance_id = ? AND ended_at_ms IS NULL`,
          now.getTime(), instanceId, instanceId);
        const own = (row: { owner: string | null }) => row.owner === instanceId;
        const refunded = giveBack(d, d.all<PendingDebitRow>(`${PENDING_DEBITS_SQL} ORDER BY p.debit_id`).filter(own), now);
        return { refunded, settledLeases: [], ...release(d.all<Reservation>(RESERVED_SQL).filter(own), d.all<Claim>(CLAIMS_SQL).filter(own)) };
      });
    },

    async checkIntegrity(now: Date): Promise<IntegrityReport> {
      return d.read((): IntegrityReport => {
        const nowMs = now.getTime();
        const stale = (row: OwnerLeaseColumns) => chargeIsStale(chargeOf(row), ownerLeaseOf(row), nowMs);
        return integrityReport(d.all(BALANCES_AND_LEDGER_SUMS_SQL), {
          pendingDebits: d.all<PendingDebitRow>(PENDING_DEBITS_SQL).filter(stale).length,
          sandboxReservations: d.all<Reservation>(RESERVED_SQL).filter(stale).length,
        }, d.all<LeaseRow>(LEASES_WITH_HOLDINGS_SQL), nowMs);
      });
    },
  };
}
