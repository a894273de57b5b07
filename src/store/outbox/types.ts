/** The outbox subject: e-mails written in the transaction that decided them, sent later by one sender at a time. */
export type OutboxKind = 'new_key' | 'top_up' | 'replacement_key';

export interface NewOutboxMessage {
  kind: OutboxKind;
  to: string;
  subject: string;
  /** Plain text. A new-key message holds the full key until it is sent. */
  body: string;
}

export interface OutboxMessage extends NewOutboxMessage {
  id: number;
  keyId: number | null;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string;
  sentAt: string | null;
  /** Set when the message was dropped unsent (its key was replaced); the body is then blanked. */
  cancelledAt: string | null;
}

export interface OutboxStore {
  enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number>;
  /** Ids of unsent messages due at `now`, oldest first. */
  dueMail(now: Date, limit: number): Promise<number[]>;
  /** Claims a due message until `leaseUntil` (so no other sender takes it); null when not due or already sent. */
  claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null>;
  /** Marks a message sent and blanks its body. */
  markMailSent(id: number, now: Date): Promise<void>;
  markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void>;
  /** Makes every unsent message due now; returns how many. */
  rescheduleMail(now: Date): Promise<number>;
  listMail(): Promise<OutboxMessage[]>;
}
