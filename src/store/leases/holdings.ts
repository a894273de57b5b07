/** The leases subject's reads (what each instance holds, the balances beside their ledger, the open leases) and their mapping. */
import { integrityOk, leaseIsReported, ledgerDisagrees } from '../../billing/rules/recovery.js';
import { toLeaseStatus, type LeaseRow } from '../rows.js';
import type { IntegrityReport, LeaseHolder } from './types.js';

/** Every lease row with what its instance still holds (pending debits and their stops, sandbox reservations, claims). */
export const LEASES_WITH_HOLDINGS_SQL = `SELECT x.*,
    (SELECT COUNT(*) FROM pending_debits p WHERE p.owner = x.instance_id) AS pending_debits,
    (SELECT COALESCE(SUM(-l.delta), 0) FROM pending_debits p JOIN ledger l ON l.id = p.debit_id WHERE p.owner = x.instance_id) AS pending_stops,
    (SELECT COUNT(*) FROM sandbox_calls s WHERE s.state = 'reserved' AND s.owner = x.instance_id) AS sandbox_reservations,
    (SELECT COUNT(*) FROM idempotency_keys i WHERE i.state = 'pending' AND i.owner = x.instance_id) AS idempotency_claims
  FROM instance_leases x ORDER BY x.started_at_ms, x.instance_id`;

/** Each key's balance beside the sum of its ledger. */
export const BALANCES_AND_LEDGER_SUMS_SQL = `SELECT k.id AS "keyId", k.balance AS balance, COALESCE(SUM(l.delta), 0) AS "ledgerSum"
  FROM api_keys k LEFT JOIN ledger l ON l.key_id = k.id GROUP BY k.id, k.balance ORDER BY k.id`;

/** Open leases, for the sweep to pick the expired ones. */
export const OPEN_LEASES_SQL = `SELECT instance_id AS "instanceId", host, pid, port, heartbeat_at_ms AS "heartbeatAtMs", expires_at_ms AS "expiresAtMs"
  FROM instance_leases WHERE ended_at_ms IS NULL`;
export type OpenLeaseRow = LeaseHolder & { heartbeatAtMs: number; expiresAtMs: number };

export const settledLease = ({ heartbeatAtMs, expiresAtMs: _, ...holder }: OpenLeaseRow) => ({
  ...holder,
  heartbeatAt: new Date(Number(heartbeatAtMs)).toISOString(),
});

/** The integrity report from what one read transaction saw. */
export function integrityReport(
  balances: Array<{ keyId: number; balance: number; ledgerSum: number }>,
  stale: { pendingDebits: number; sandboxReservations: number },
  leases: LeaseRow[],
  nowMs: number,
): IntegrityReport {
  const statuses = leases
    .map((row) => toLeaseStatus(row, nowMs))
    .filter((l) => leaseIsReported({ ...l, endedAtMs: l.endedAt === null ? null : Date.parse(l.endedAt) }));
  const report = {
    keysChecked: balances.length,
    mismatches: balances
      .filter(ledgerDisagrees)
      .map((k) => ({ keyId: k.keyId, balance: Number(k.balance), ledgerSum: Number(k.ledgerSum) })),
    expiredPendingDebits: stale.pendingDebits,
    expiredSandboxReservations: stale.sandboxReservations,
    leases: statuses,
  };
  return { ...report, ok: integrityOk(report) };
}
