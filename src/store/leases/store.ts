/**
 * The leases subject, once for both databases: it writes `instance_leases`. The sweep reads each pending charge
 * with its owner's lease, the rules decide which are gone (a decision that stays true: an ended lease never lives
 * again), then it asks the subject holding each charge to give it back (the ledger, the sandbox, the
 * Idempotency-Key claims), in the same transaction; each of their writes re-checks under the row lock what a
 * concurrent settle or renewal may have changed.
 */
import {
  ENDED_LEASE_RETENTION_MS,
  chargeIsGone,
  chargeIsStale,
  leaseHasExpired,
} from '../../billing/rules/recovery.js';
import { pendingClaims, releaseClaims } from '../idempotency/store.js';
import { giveBackDebits, pendingDebits } from '../ledger/store.js';
import { chargeOf, ownerLeaseOf, type OwnerLeaseColumns } from '../owner-lease.js';
import type { LeaseRow } from '../rows.js';
import { releaseReservations, reservations } from '../sandbox/store.js';
import { placeholders, rows, run, type Dialect, type SqlDb, type Work } from '../sql.js';
import {
  BALANCES_AND_LEDGER_SUMS_SQL,
  LEASES_WITH_HOLDINGS_SQL,
  OPEN_LEASES_SQL,
  integrityReport,
  settledLease,
  type OpenLeaseRow,
} from './holdings.js';
import type { IntegrityReport, LeaseHolder, LeaseStore, RecoveryReport, RecoveryRequest } from './types.js';

type Pick = (row: OwnerLeaseColumns) => boolean;

/** Gives back what `pick` chooses among the pending charges: debits refunded, reservations released, claims freed. */
function* giveBackCharges(d: Dialect, pick: Pick, now: Date): Work<Omit<RecoveryReport, 'settledLeases' | 'renewed'>> {
  const refunded = yield* giveBackDebits(
    d,
    (yield* pendingDebits()).filter(pick).map((p) => p.id),
    now,
  );
  const releasedSandbox = yield* releaseReservations((yield* reservations()).filter(pick).map((s) => s.id));
  const releasedIdempotencyClaims = yield* releaseClaims((yield* pendingClaims()).filter(pick));
  return { refunded, releasedSandbox, releasedIdempotencyClaims };
}

/** Ends the leases found expired, re-checked on their locked rows (a renewal that committed since the read wins); returns those it ended. */
function* endExpired(d: Dialect, expired: OpenLeaseRow[], nowMs: number, by: string): Work<OpenLeaseRow[]> {
  if (expired.length === 0) return [];
  return yield* rows<OpenLeaseRow>(
    `UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'settled', ended_by = $2
    WHERE instance_id IN (SELECT instance_id FROM instance_leases WHERE instance_id IN (${placeholders(expired.length, 3)})
      AND ended_at_ms IS NULL AND expires_at_ms <= $1${d.skipLocked})
    RETURNING instance_id AS "instanceId", host, pid, port, heartbeat_at_ms AS "heartbeatAtMs", expires_at_ms AS "expiresAtMs"`,
    [nowMs, by, ...expired.map((l) => l.instanceId)],
  );
}

export function leaseStore(db: SqlDb): LeaseStore {
  const d = db.dialect;
  return {
    async acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void> {
      await db.run(
        `INSERT INTO instance_leases (instance_id, host, pid, port, started_at_ms, heartbeat_at_ms, expires_at_ms)
        VALUES ($1, $2, $3, $4, $5, $5, $6)`,
        [holder.instanceId, holder.host, holder.pid, holder.port, now.getTime(), untilMs],
      );
    },

    async recoverCharges(r: RecoveryRequest): Promise<RecoveryReport> {
      return db.write(function* (): Work<RecoveryReport> {
        const nowMs = r.now.getTime();
        // an ended lease is never renewed: its charges may already have been given back
        const renewed =
          r.renewUntilMs === undefined
            ? undefined
            : (yield* run(
                `UPDATE instance_leases SET heartbeat_at_ms = $1, expires_at_ms = $2
          WHERE instance_id = $3 AND ended_at_ms IS NULL`,
                [nowMs, r.renewUntilMs, r.by],
              )) === 1;
        const expired = (yield* rows<OpenLeaseRow>(OPEN_LEASES_SQL)).filter((l) =>
          leaseHasExpired({ endedAtMs: null, expiresAtMs: l.expiresAtMs }, nowMs),
        );
        // SKIP LOCKED: a lease being renewed (or ended by another sweeper) right now is left alone
        const ended = yield* endExpired(d, expired, nowMs, r.by);
        const given = yield* giveBackCharges(
          d,
          (row) => chargeIsGone(chargeOf(row), ownerLeaseOf(row), nowMs, r.by),
          r.now,
        );
        yield* run('DELETE FROM instance_leases WHERE ended_at_ms IS NOT NULL AND ended_at_ms < $1', [
          nowMs - ENDED_LEASE_RETENTION_MS,
        ]);
        return { ...given, ...(renewed === undefined ? {} : { renewed }), settledLeases: ended.map(settledLease) };
      });
    },

    async releaseLease(instanceId: string, now: Date): Promise<RecoveryReport> {
      return db.write(function* (): Work<RecoveryReport> {
        yield* run(
          `UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'released', ended_by = $2
          WHERE instance_id = $2 AND ended_at_ms IS NULL`,
          [now.getTime(), instanceId],
        );
        return { ...(yield* giveBackCharges(d, (row) => row.owner === instanceId, now)), settledLeases: [] };
      });
    },

    async checkIntegrity(now: Date): Promise<IntegrityReport> {
      // one snapshot for every count
      return db.read(function* (): Work<IntegrityReport> {
        const nowMs = now.getTime();
        const stale: Pick = (row) => chargeIsStale(chargeOf(row), ownerLeaseOf(row), nowMs);
        return integrityReport(
          yield* rows(BALANCES_AND_LEDGER_SUMS_SQL),
          {
            pendingDebits: (yield* pendingDebits()).filter(stale).length,
            sandboxReservations: (yield* reservations()).filter(stale).length,
          },
          yield* rows<LeaseRow>(LEASES_WITH_HOLDINGS_SQL),
          nowMs,
        );
      });
    },
  };
}
