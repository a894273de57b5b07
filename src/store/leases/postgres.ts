/**
 * The leases subject on PostgreSQL. The sweep reads each pending charge with its owner's lease, the rules decide
 * which are gone (a decision that stays true: an ended lease never lives again), then it locks and gives back
 * those alone; each write re-checks under the row lock what a concurrent settle or renewal may have changed.
 */
import { ENDED_LEASE_RETENTION_MS, chargeIsGone, chargeIsStale, leaseHasExpired } from '../../billing/rules/recovery.js';
import { chargeOf, ownerLeaseOf, type OwnerLeaseColumns } from '../owner-lease.js';
import type { PgDb, Tx } from '../postgres-db.js';
import { PENDING_DEBITS_SQL, giveBack, type PendingDebitRow } from '../postgres-rows.js';
import type { LeaseRow } from '../rows.js';
import {
  BALANCES_AND_LEDGER_SUMS_SQL, CLAIMS_SQL, LEASES_WITH_HOLDINGS_SQL, OPEN_LEASES_SQL, RESERVED_SQL, integrityReport, settledLease,
  type Claim, type OpenLeaseRow, type Reservation,
} from './holdings.js';
import type { IntegrityReport, LeaseHolder, LeaseStore, RecoveryReport, RecoveryRequest } from './types.js';

type Pick = (row: OwnerLeaseColumns) => boolean;


/** Gives back what `pick` chooses among the pending charges: debits refunded, reservations released, claims freed. */
async function giveBackCharges(t: Tx, pick: Pick, now: Date): Promise<Omit<RecoveryReport, 'settledLeases' | 'renewed'>> {
  const debitIds = (await t.rows<PendingDebitRow>(PENDING_DEBITS_SQL)).filter(pick).map((p) => p.id);
  // SKIP LOCKED: a charge being settled right now (or swept by another instance) is left to that transaction
  const locked = debitIds.length === 0 ? [] : await t.rows<{ debit_id: number }>(`SELECT debit_id FROM pending_debits
    WHERE debit_id = ANY($1::bigint[]) ORDER BY debit_id FOR UPDATE SKIP LOCKED`, [debitIds]);
  const refunded = await giveBack(t, locked.map((p) => p.debit_id), now);
  const reservations = (await t.rows<Reservation>(RESERVED_SQL)).filter(pick);
  const releasedSandbox = reservations.length === 0 ? 0 : await t.run(`UPDATE sandbox_calls SET state = 'released'
    WHERE id = ANY($1::bigint[]) AND state = 'reserved'`, [reservations.map((s) => s.id)]);
  const claims = (await t.rows<Claim>(CLAIMS_SQL)).filter(pick);
  // a claim taken again meanwhile (another owner or deadline) is not the one that was judged gone
  const releasedIdempotencyClaims = claims.length === 0 ? 0 : await t.run(`DELETE FROM idempotency_keys
    WHERE state = 'pending' AND (key_id, idempotency_key, owner, expires_at_ms) IN (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]))`,
  [claims.map((c) => c.key_id), claims.map((c) => c.idempotency_key), claims.map((c) => c.owner), claims.map((c) => c.expires_at_ms)]);
  return { refunded, releasedSandbox, releasedIdempotencyClaims };
}

export function postgresLeases(db: PgDb): LeaseStore {
  return {
    async acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void> {
      await db.q(`INSERT INTO instance_leases (instance_id, host, pid, port, started_at_ms, heartbeat_at_ms, expires_at_ms)
        VALUES ($1, $2, $3, $4, $5, $5, $6)`, [holder.instanceId, holder.host, holder.pid, holder.port, now.getTime(), untilMs]);
    },

    async recoverCharges(r: RecoveryRequest): Promise<RecoveryReport> {
      return db.tx(async (t): Promise<RecoveryReport> => {
        const nowMs = r.now.getTime();
        // an ended lease is never renewed: its charges may already have been given back
        const renewed = r.renewUntilMs === undefined ? undefined : await t.run(`UPDATE instance_leases SET heartbeat_at_ms = $1, expires_at_ms = $2
          WHERE instance_id = $3 AND ended_at_ms IS NULL`, [nowMs, r.renewUntilMs, r.by]) === 1;
        const expired = (await t.rows<OpenLeaseRow>(OPEN_LEASES_SQL)).filter((l) => leaseHasExpired({ endedAtMs: null, expiresAtMs: l.expiresAtMs }, nowMs));
        // SKIP LOCKED: a lease being renewed (or ended by another sweeper) right now is left alone; the expiry is checked
        // again on the locked row: a renewal that committed since our read wins
        const ended = expired.length === 0 ? [] : await t.rows<OpenLeaseRow>(`UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'settled', ended_by = $2
          WHERE instance_id IN (SELECT instance_id FROM instance_leases WHERE instance_id = ANY($3::text[]) AND ended_at_ms IS NULL AND expires_at_ms <= $1
            FOR UPDATE SKIP LOCKED)
          RETURNING instance_id AS "instanceId", host, pid, port, heartbeat_at_ms AS "heartbeatAtMs", expires_at_ms AS "expiresAtMs"`,
        [nowMs, r.by, expired.map((l) => l.instanceId)]);
        const given = await giveBackCharges(t, (row) => chargeIsGone(chargeOf(row), ownerLeaseOf(row), nowMs, r.by), r.now);
        await t.run('DELETE FROM instance_leases WHERE ended_at_ms IS NOT NULL AND ended_at_ms < $1', [nowMs - ENDED_LEASE_RETENTION_MS]);
        return { ...given, ...(renewed === undefined ? {} : { renewed }), settledLeases: ended.map(settledLease) };
      });
    },

    async releaseLease(instanceId: string, now: Date): Promise<RecoveryReport> {
      return db.tx(async (t): Promise<RecoveryReport> => {
        await t.run(`UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'released', ended_by = $2
          WHERE instance_id = $2 AND ended_at_ms IS NULL`, [now.getTime(), instanceId]);
        return { ...await giveBackCharges(t, (row) => row.owner === instanceId, now), settledLeases: [] };
      });
    },

    async checkIntegrity(now: Date): Promise<IntegrityReport> {
      // one snapshot for every count
      return db.tx(async (t): Promise<IntegrityReport> => {
        const nowMs = now.getTime();
        const stale: Pick = (row) => chargeIsStale(chargeOf(row), ownerLeaseOf(row), nowMs);
        return integrityReport(await t.rows(BALANCES_AND_LEDGER_SUMS_SQL), {
          pendingDebits: (await t.rows<PendingDebitRow>(PENDING_DEBITS_SQL)).filter(stale).length,
          sandboxReservations: (await t.rows<Reservation>(RESERVED_SQL)).filter(stale).length,
        }, await t.rows<LeaseRow>(LEASES_WITH_HOLDINGS_SQL), nowMs);
      }, 'snapshot');
    },
  };
}
