/** The outbox subject, once for both databases: it writes `outbox`. Its row functions run inside payments' transactions. */
import { toOutbox, type OutboxRow } from '../rows.js';
import { one, run, type SqlDb, type Work } from '../sql.js';
import type { NewOutboxMessage, OutboxMessage, OutboxStore } from './types.js';

export function* insertOutboxRow(message: NewOutboxMessage, keyId: number | null, now: string): Work<number> {
  const row = yield* one<{ id: number }>(
    `INSERT INTO outbox (kind, to_address, subject, body, key_id, created_at, next_attempt_at)
    VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
    [message.kind, message.to, message.subject, message.body, keyId, now],
  );
  return row!.id;
}

/** Drops a key's unsent mail (blanking the bodies, which may hold the key), noting why. */
export const cancelMailOf = (keyId: number, note: string, now: string): Work<number> =>
  run(
    `UPDATE outbox SET cancelled_at = $1, body = '', last_error = $2 WHERE key_id = $3 AND sent_at IS NULL AND cancelled_at IS NULL`,
    [now, note, keyId],
  );

export function outboxStore(db: SqlDb): OutboxStore {
  return {
    async enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number> {
      return db.write(() => insertOutboxRow(message, keyId, now.toISOString()));
    },

    async dueMail(now: Date, limit: number): Promise<number[]> {
      const rows = await db.rows<{ id: number }>(
        `SELECT id FROM outbox WHERE sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= $1
        ORDER BY id LIMIT $2`,
        [now.toISOString(), limit],
      );
      return rows.map((r) => r.id);
    },

    async claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null> {
      // the lease: one conditional UPDATE; a second sender (any instance) waits for the row (or the database), re-checks, and finds it taken
      const [row] = await db.rows<OutboxRow>(
        `UPDATE outbox SET next_attempt_at = $1
        WHERE id = $2 AND sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= $3 RETURNING *`,
        [leaseUntil.toISOString(), id, now.toISOString()],
      );
      return row ? toOutbox(row) : null;
    },

    async markMailSent(id: number, now: Date): Promise<void> {
      await db.run(
        `UPDATE outbox SET sent_at = $1, body = '', attempts = attempts + 1, last_error = NULL WHERE id = $2 AND sent_at IS NULL`,
        [now.toISOString(), id],
      );
    },

    async markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void> {
      await db.run(
        'UPDATE outbox SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2 WHERE id = $3 AND sent_at IS NULL',
        [error.slice(0, 1000), nextAttemptAt.toISOString(), id],
      );
    },

    async rescheduleMail(now: Date): Promise<number> {
      return db.run('UPDATE outbox SET next_attempt_at = $1 WHERE sent_at IS NULL AND cancelled_at IS NULL', [
        now.toISOString(),
      ]);
    },

    async listMail(): Promise<OutboxMessage[]> {
      return (await db.rows<OutboxRow>('SELECT * FROM outbox ORDER BY id')).map(toOutbox);
    },
  };
}
