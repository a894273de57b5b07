/** The sandbox quotas subject on PostgreSQL: one reservation at a time per key, under the key's row lock. */
import { SANDBOX_ROW_RETENTION_MS, decideSandboxReservation } from '../../billing/rules/quotas.js';
import type { PgDb, Tx } from '../postgres-db.js';
import type { SandboxReservationOutcome, SandboxReservationRequest, SandboxStore, SandboxUsage, SandboxWindow } from './types.js';
import { SANDBOX_USAGE_SQL, toSandboxUsage, type SandboxUsageRow } from './usage.js';

const params = (w: SandboxWindow) => [w.keyId, w.windowStartMs, w.day];

export function postgresSandbox(db: PgDb): SandboxStore {
  const usage = async (t: Tx, w: SandboxWindow): Promise<SandboxUsage> => toSandboxUsage((await t.one<SandboxUsageRow>(SANDBOX_USAGE_SQL('$'), params(w)))!);
  return {
    async sandboxUsage(w: SandboxWindow): Promise<SandboxUsage> {
      return toSandboxUsage((await db.q<SandboxUsageRow>(SANDBOX_USAGE_SQL('$'), params(w))).rows[0]);
    },

    async reserveSandbox(r: SandboxReservationRequest): Promise<SandboxReservationOutcome> {
      return db.tx(async (t): Promise<SandboxReservationOutcome> => {
        // one reservation at a time per key, across every instance: count and insert under the key's row lock
        await t.run('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [r.keyId]);
        await t.run('DELETE FROM sandbox_calls WHERE key_id = $1 AND at_ms < $2', [r.keyId, r.nowMs - SANDBOX_ROW_RETENTION_MS]);
        const before = await usage(t, r);
        const decision = decideSandboxReservation(before, r);
        if (!decision.ok) return { ...decision, usage: before };
        const inserted = await t.one<{ id: number }>(`INSERT INTO sandbox_calls (key_id, request_id, at_ms, paris_day, stops, state, expires_at_ms, owner)
          VALUES ($1, $2, $3, $4, $5, 'reserved', $6, $7) RETURNING id`, [r.keyId, r.requestId, r.nowMs, r.day, r.stops, r.pending.untilMs, r.pending.owner]);
        return { ok: true, reservationId: inserted!.id, usage: await usage(t, r) };
      });
    },

    async releaseSandbox(reservationId: number): Promise<void> {
      await db.q(`UPDATE sandbox_calls SET state = 'released' WHERE id = $1 AND state = 'reserved'`, [reservationId]);
    },
  };
}
