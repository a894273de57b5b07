/** The outbox subject on SQLite. */
import { toOutbox, type OutboxRow } from '../rows.js';
import type { SqliteDb } from '../sqlite-db.js';
import { insertOutboxRow } from '../sqlite-rows.js';
import type { NewOutboxMessage, OutboxMessage, OutboxStore } from './types.js';

export function sqliteOutbox(d: SqliteDb): OutboxStore {
  return {
    async enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number> {
      return d.attempt(() => insertOutboxRow(d, message, keyId, now.toISOString()));
    },

    async dueMail(now: Date, limit: number): Promise<number[]> {
      return d.attempt(() => d.all<{ id: number }>(`SELECT id FROM outbox WHERE sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= ?
        ORDER BY id LIMIT ?`, now.toISOString(), limit).map((r) => r.id));
    },

    async claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null> {
      return d.write((): OutboxMessage | null => {
        const claimed = d.run(`UPDATE outbox SET next_attempt_at = ? WHERE id = ? AND sent_at IS NULL AND cancelled_at IS NULL AND next_attempt_at <= ?`,
          leaseUntil.toISOString(), id, now.toISOString()).changes;
        return claimed === 1 ? toOutbox(d.get<OutboxRow>('SELECT * FROM outbox WHERE id = ?', id)!) : null;
      });
    },

    async markMailSent(id: number, now: Date): Promise<void> {
      await d.attempt(() => d.run(`UPDATE outbox SET sent_at = ?, body = '', attempts = attempts + 1, last_error = NULL WHERE id = ? AND sent_at IS NULL`, now.toISOString(), id));
    },

    async markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void> {
      await d.attempt(() => d.run('UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ? AND sent_at IS NULL',
        error.slice(0, 1000), nextAttemptAt.toISOString(), id));
    },

    async rescheduleMail(now: Date): Promise<number> {
      return d.attempt(() => d.run('UPDATE outbox SET next_attempt_at = ? WHERE sent_at IS NULL AND cancelled_at IS NULL', now.toISOString()).changes);
    },

    async listMail(): Promise<OutboxMessage[]> {
      return d.attempt(() => d.all<OutboxRow>('SELECT * FROM outbox ORDER BY id').map(toOutbox));
    },
  };
}
