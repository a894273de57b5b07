/** The sandbox quotas subject on SQLite. */
import { SANDBOX_ROW_RETENTION_MS, decideSandboxReservation } from '../../billing/rules/quotas.js';
import type { SqliteDb } from '../sqlite-db.js';
import type { SandboxReservationOutcome, SandboxReservationRequest, SandboxStore, SandboxUsage, SandboxWindow } from './types.js';
import { SANDBOX_USAGE_SQL, toSandboxUsage, type SandboxUsageRow } from './usage.js';

export function sqliteSandbox(d: SqliteDb): SandboxStore {
  const usage = (w: SandboxWindow): SandboxUsage => toSandboxUsage(d.get<SandboxUsageRow>(SANDBOX_USAGE_SQL('@'), { keyId: w.keyId, windowStartMs: w.windowStartMs, day: w.day })!);
  return {
    async sandboxUsage(window: SandboxWindow): Promise<SandboxUsage> {
      return d.attempt(() => usage(window));
    },

    async reserveSandbox(r: SandboxReservationRequest): Promise<SandboxReservationOutcome> {
      return d.write((): SandboxReservationOutcome => {
        d.run('DELETE FROM sandbox_calls WHERE key_id = ? AND at_ms < ?', r.keyId, r.nowMs - SANDBOX_ROW_RETENTION_MS);
        const before = usage(r);
        const decision = decideSandboxReservation(before, r);
        if (!decision.ok) return { ...decision, usage: before };
        const reservationId = d.run(`INSERT INTO sandbox_calls (key_id, request_id, at_ms, paris_day, stops, state, expires_at_ms, owner)
          VALUES (?, ?, ?, ?, ?, 'reserved', ?, ?)`, r.keyId, r.requestId, r.nowMs, r.day, r.stops, r.pending.untilMs, r.pending.owner).id;
        return { ok: true, reservationId, usage: usage(r) };
      });
    },

    async releaseSandbox(reservationId: number): Promise<void> {
      await d.attempt(() => d.run(`UPDATE sandbox_calls SET state = 'released' WHERE id = ? AND state = 'reserved'`, reservationId));
    },
  };
}
