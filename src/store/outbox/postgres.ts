/** The outbox subject on PostgreSQL. */
import type { PgDb } from '../postgres-db.js';
import { insertOutboxRow } from '../postgres-rows.js';
import { toOutbox, type OutboxRow } from '../rows.js';
import type { NewOutboxMessage, OutboxMessage, OutboxStore } from './types.js';

export function postgresOutbox(db: PgDb): OutboxStore {
  return {
    async enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number> {
      return db.tx((t) => insertOutboxRow(t, message, keyId, now.toISOString()));
    },

    async dueMail(now: Date, limit: number): Promise<number[]> {
      const { rows } = await db.q<{ id: number }>(`SELECT id FROM outbox WHERE sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= $1
        ORDER BY id LIMIT $2`, [now.toISOString(), limit]);
      return rows.map((r) => r.id);
    },

    async claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null> {
      // the lease: one conditional UPDATE; a second sender (any instance) waits on the row lock, re-checks, and finds it taken
      const { rows } = await db.q<OutboxRow>(`UPDATE outbox SET next_attempt_at = $1
        WHERE id = $2 AND sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= $3 RETURNING *`, [leaseUntil.toISOString(), id, now.toISOString()]);
      return rows[0] ? toOutbox(rows[0]) : null;
    },

    async markMailSent(id: number, now: Date): Promise<void> {
      await db.q(`UPDATE outbox SET sent_at = $1, body = '', attempts = attempts + 1, last_error = NULL WHERE id = $2 AND sent_at IS NULL`, [now.toISOString(), id]);
    },

    async markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void> {
      await db.q('UPDATE outbox SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2 WHERE id = $3 AND sent_at IS NULL',
        [error.slice(0, 1000), nextAttemptAt.toISOString(), id]);
    },

    async rescheduleMail(now: Date): Promise<number> {
      return (await db.q('UPDATE outbox SET next_attempt_at = $1 WHERE sent_at IS NULL AND cancelled_at IS NULL', [now.toISOString()])).rowCount;
    },

    async listMail(): Promise<OutboxMessage[]> {
      return (await db.q<OutboxRow>('SELECT * FROM outbox ORDER BY id')).rows.map(toOutbox);
    },
  };
}
