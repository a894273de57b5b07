/**
 * The sandbox quotas subject, once for both databases: it writes `sandbox_calls`. One reservation at a time per
 * key: counted and inserted under the key's row lock (PostgreSQL) or the write transaction (SQLite).
 */
import { SANDBOX_ROW_RETENTION_MS, decideSandboxReservation } from '../../billing/rules/quotas.js';
import { OWNER_LEASE_COLUMNS, joinOwnerLease, type OwnerLeaseColumns } from '../owner-lease.js';
import { keyRow } from '../keys/rows.js';
import { one, placeholders, rows, run, type SqlDb, type Work } from '../sql.js';
import type {
  SandboxReservationOutcome,
  SandboxReservationRequest,
  SandboxStore,
  SandboxUsage,
  SandboxWindow,
} from './types.js';

/**
 * No upper bound on the instant: a call stamped a moment later by another process's clock, yet reserved first,
 * still counts. A released call's stops do not count toward the day; the call itself still counts toward the minute.
 */
const USAGE_SQL = `SELECT
    (SELECT COUNT(*) FROM sandbox_calls WHERE key_id = $1 AND at_ms >= $2) AS calls,
    (SELECT MIN(at_ms) FROM sandbox_calls WHERE key_id = $1 AND at_ms >= $2) AS oldest,
    (SELECT COALESCE(SUM(stops), 0) FROM sandbox_calls WHERE key_id = $1 AND paris_day = $3 AND state <> 'released') AS stops`;

interface UsageRow {
  calls: number;
  oldest: number | null;
  stops: number;
}

const toUsage = (row: UsageRow): SandboxUsage => ({
  callsInWindow: row.calls,
  oldestCallMs: row.oldest,
  stopsToday: row.stops,
});
const usageParams = (w: SandboxWindow) => [w.keyId, w.windowStartMs, w.day];

function* usage(w: SandboxWindow): Work<SandboxUsage> {
  return toUsage((yield* one<UsageRow>(USAGE_SQL, usageParams(w)))!);
}

/** A call's reservation becomes final. False when it was no longer reserved (the sweep released it). */
export function* consumeReservation(id: number): Work<boolean> {
  return (yield* run(`UPDATE sandbox_calls SET state = 'consumed' WHERE id = $1 AND state = 'reserved'`, [id])) === 1;
}

/** A call that failed after its reservation became final (an asynchronous plan): its stops count no more toward the day. */
export function* giveBackSandboxCall(id: number): Work<boolean> {
  return (yield* run(`UPDATE sandbox_calls SET state = 'released' WHERE id = $1 AND state <> 'released'`, [id])) === 1;
}

/** A reservation still held, with its owner's lease, as the sweep and `db check` read it. */
export type Reservation = OwnerLeaseColumns & { id: number };

export const reservations = (): Work<Reservation[]> =>
  rows<Reservation>(
    `SELECT s.id, s.owner, s.expires_at_ms, ${OWNER_LEASE_COLUMNS} FROM sandbox_calls s ${joinOwnerLease('s')} WHERE s.state = 'reserved'`,
  );

/** Releases reservations the sweep judged gone; one the call consumed meanwhile stays consumed. Returns how many. */
export function* releaseReservations(ids: number[]): Work<number> {
  if (ids.length === 0) return 0;
  return yield* run(
    `UPDATE sandbox_calls SET state = 'released' WHERE id IN (${placeholders(ids.length)}) AND state = 'reserved'`,
    ids,
  );
}

export function sandboxStore(db: SqlDb): SandboxStore {
  const d = db.dialect;
  return {
    async sandboxUsage(w: SandboxWindow): Promise<SandboxUsage> {
      return toUsage((await db.rows<UsageRow>(USAGE_SQL, usageParams(w)))[0]);
    },

    async reserveSandbox(r: SandboxReservationRequest): Promise<SandboxReservationOutcome> {
      return db.write(function* (): Work<SandboxReservationOutcome> {
        // one reservation at a time per key, across every instance: count and insert under the key's row lock
        yield* keyRow(d, r.keyId, true);
        yield* run('DELETE FROM sandbox_calls WHERE key_id = $1 AND at_ms < $2', [
          r.keyId,
          r.nowMs - SANDBOX_ROW_RETENTION_MS,
        ]);
        const before = yield* usage(r);
        const decision = decideSandboxReservation(before, r);
        if (!decision.ok) return { ...decision, usage: before };
        const inserted = yield* one<{ id: number }>(
          `INSERT INTO sandbox_calls (key_id, request_id, at_ms, paris_day, stops, state, expires_at_ms, owner)
          VALUES ($1, $2, $3, $4, $5, 'reserved', $6, $7) RETURNING id`,
          [r.keyId, r.requestId, r.nowMs, r.day, r.stops, r.pending.untilMs, r.pending.owner],
        );
        return { ok: true, reservationId: inserted!.id, usage: yield* usage(r) };
      });
    },

    async releaseSandbox(reservationId: number): Promise<void> {
      await db.run(`UPDATE sandbox_calls SET state = 'released' WHERE id = $1 AND state = 'reserved'`, [reservationId]);
    },
  };
}
