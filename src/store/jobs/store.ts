/**
 * The asynchronous-plan subject, once for both databases: it writes `plan_jobs`. Instances sharing a database share
 * its queue: a runner takes the oldest waiting job under a row lock that other runners skip (PostgreSQL's
 * FOR UPDATE SKIP LOCKED; SQLite's one write transaction), and every later write of the runner names its hold
 * (owner and attempt), so a job taken again after its runner died is never written by both.
 */
import { refundDebit } from '../ledger/store.js';
import { giveBackSandboxCall } from '../sandbox/store.js';
import { one, run, type Dialect, type SqlDb, type Work } from '../sql.js';
import type { Job, JobEnd, JobHold, JobProgressOutcome, JobStatus, JobStore, NewJob } from './types.js';

interface JobRow {
  id: string;
  key_id: number;
  status: JobStatus;
  request_body: string;
  budget_ms: number;
  stops: number;
  debit_id: number | null;
  sandbox_reservation_id: number | null;
  created_at_ms: number;
  started_at_ms: number | null;
  finished_at_ms: number | null;
  owner: string | null;
  attempts: number;
  cancel_requested: number;
  progress: string | null;
  result: string | null;
  error: string | null;
}

const orNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

const toJob = (r: JobRow): Job => ({
  id: r.id,
  keyId: Number(r.key_id),
  status: r.status,
  requestBody: r.request_body,
  budgetMs: Number(r.budget_ms),
  stops: Number(r.stops),
  sandbox: r.sandbox_reservation_id !== null,
  createdAtMs: Number(r.created_at_ms),
  startedAtMs: orNull(r.started_at_ms),
  finishedAtMs: orNull(r.finished_at_ms),
  attempts: Number(r.attempts),
  cancelRequested: Number(r.cancel_requested) === 1,
  progress: r.progress,
  result: r.result,
  error: r.error,
});

/** Creates a job; part of the transaction that makes its call's charge final. */
export function* insertJob(j: NewJob): Work<void> {
  yield* run(
    `INSERT INTO plan_jobs (id, key_id, status, request_body, budget_ms, stops, debit_id, sandbox_reservation_id, created_at_ms)
    VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8)`,
    [
      j.id,
      j.keyId,
      j.requestBody,
      j.budgetMs,
      j.stops,
      j.debitId ?? null,
      j.sandboxReservationId ?? null,
      j.createdAtMs,
    ],
  );
}

/** Gives back what a job that ends without a plan was charged: the live debit, or the test key's day stops. */
function* giveBackCharge(d: Dialect, row: Pick<JobRow, 'debit_id' | 'sandbox_reservation_id'>, now: Date): Work<void> {
  if (row.debit_id !== null) yield* refundDebit(d, Number(row.debit_id), now);
  if (row.sandbox_reservation_id !== null) yield* giveBackSandboxCall(Number(row.sandbox_reservation_id));
}

/** Whether an end leaves the job without a plan, so that its charge goes back. */
const endsWithoutPlan = (end: JobEnd): boolean =>
  end.status === 'failed' || (end.status === 'cancelled' && end.result === null);

/** A running job whose runner holds no live lease (it died, or stalled past its lease) is waiting again. */
const WAITING = `(j.status = 'queued' OR (j.status = 'running' AND NOT EXISTS (SELECT 1 FROM instance_leases x
  WHERE x.instance_id = j.owner AND x.ended_at_ms IS NULL AND x.expires_at_ms > $1)))`;

const HELD = 'id = $1 AND owner = $2 AND attempts = $3 AND status = $4';
const heldParams = (h: JobHold) => [h.id, h.owner, h.attempt, 'running'];

export function jobStore(db: SqlDb): JobStore {
  const d = db.dialect;
  return {
    async job(keyId, id) {
      const [row] = await db.rows<JobRow>('SELECT * FROM plan_jobs WHERE id = $1 AND key_id = $2', [id, keyId]);
      return row ? toJob(row) : null;
    },

    async takeJob(owner, nowMs) {
      return db.write(function* () {
        const waiting = yield* one<{ id: string }>(
          `SELECT j.id FROM plan_jobs j WHERE ${WAITING} ORDER BY j.created_at_ms, j.id LIMIT 1${d.skipLocked}`,
          [nowMs],
        );
        if (!waiting) return null;
        const row = (yield* one<JobRow>(
          `UPDATE plan_jobs SET status = 'running', owner = $2, attempts = attempts + 1,
          started_at_ms = COALESCE(started_at_ms, $3) WHERE id = $1 RETURNING *`,
          [waiting.id, owner, nowMs],
        ))!;
        const job = toJob(row);
        return { job, hold: { id: job.id, owner, attempt: job.attempts } };
      });
    },

    async releaseJob(hold) {
      return (
        (await db.run(`UPDATE plan_jobs SET status = 'queued', owner = NULL WHERE ${HELD}`, heldParams(hold))) === 1
      );
    },

    async recordJobProgress(hold, progress): Promise<JobProgressOutcome> {
      const row = await db.write(() =>
        one<{ cancel_requested: number }>(
          `UPDATE plan_jobs SET progress = $5 WHERE ${HELD} RETURNING cancel_requested`,
          [...heldParams(hold), progress],
        ),
      );
      return row
        ? { held: true, cancelRequested: Number(row.cancel_requested) === 1 }
        : { held: false, cancelRequested: false };
    },

    async finishJob(hold, end, now) {
      return db.write(function* () {
        const row = yield* one<JobRow>(
          `UPDATE plan_jobs SET status = $5, result = $6, error = $7, finished_at_ms = $8 WHERE ${HELD} RETURNING *`,
          [
            ...heldParams(hold),
            end.status,
            end.status === 'failed' ? null : end.result,
            end.status === 'failed' ? end.error : null,
            now.getTime(),
          ],
        );
        if (!row) return false;
        if (endsWithoutPlan(end)) yield* giveBackCharge(d, row, now);
        return true;
      });
    },

    async cancelJob(keyId, id, now) {
      return db.write(function* () {
        const row = yield* one<JobRow>(`SELECT * FROM plan_jobs WHERE id = $1 AND key_id = $2${d.forUpdate()}`, [
          id,
          keyId,
        ]);
        if (!row) return null;
        if (row.status === 'queued') {
          const cancelled = (yield* one<JobRow>(
            `UPDATE plan_jobs SET status = 'cancelled', finished_at_ms = $2 WHERE id = $1 RETURNING *`,
            [id, now.getTime()],
          ))!;
          yield* giveBackCharge(d, cancelled, now);
          return toJob(cancelled);
        }
        if (row.status === 'running' && Number(row.cancel_requested) === 0) {
          return toJob(
            (yield* one<JobRow>(`UPDATE plan_jobs SET cancel_requested = 1 WHERE id = $1 RETURNING *`, [id]))!,
          );
        }
        return toJob(row);
      });
    },

    async unfinishedJobs(keyId) {
      const [row] = await db.rows<{ n: number }>(
        `SELECT COUNT(*) AS n FROM plan_jobs WHERE key_id = $1 AND status IN ('queued', 'running')`,
        [keyId],
      );
      return Number(row?.n ?? 0);
    },

    async queuedJobs() {
      const [row] = await db.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM plan_jobs WHERE status = 'queued'`);
      return Number(row?.n ?? 0);
    },

    async deleteFinishedJobs(beforeMs) {
      return db.run('DELETE FROM plan_jobs WHERE finished_at_ms < $1', [beforeMs]);
    },
  };
}
