/** The checkout subject: paid Checkout Sessions credited once, and key replacement by e-mail. */
import type { ApiKeyRecord, KeyMaterial } from '../keys/types.js';
import type { NewOutboxMessage } from '../outbox/types.js';

/** A payment and the delivery of the e-mail that announced it. */
export interface PaymentStatus extends PaymentRecord {
  /** When the new-key or top-up e-mail of this payment was sent; null while it waits in the outbox. */
  mailSentAt: string | null;
}

/** What a paid Checkout Session says: its ids, who paid, for which pack, how much. */
export interface PaidSession {
  stripeEventId: string;
  stripeSessionId: string;
  email: string;
  packId: string;
  stops: number;
  amountCents: number;
  currency: string;
}

export interface PaymentRecord extends PaidSession {
  id: number;
  keyId: number;
  keyLast4: string;
  /** True when this payment created the key, false when it topped up an existing one. */
  createdKey: boolean;
  createdAt: string;
}

export interface PurchaseRequest extends PaidSession {
  /** Used only when the e-mail has no active live key. */
  newKey: KeyMaterial;
  /** Composes the e-mail once the transaction knows which key was credited and its new balance. */
  composeMail(result: { createdKey: boolean; key: ApiKeyRecord; balance: number }): NewOutboxMessage;
  now: Date;
}

export type PurchaseOutcome =
  | { kind: 'duplicate'; matched: 'event' | 'session' }
  | { kind: 'credited'; createdKey: boolean; key: ApiKeyRecord; balance: number; paymentId: number; outboxId: number };

export interface ReplaceKeyRequest {
  oldKeyId: number;
  newKey: KeyMaterial;
  composeMail(result: { oldKey: ApiKeyRecord; newKey: ApiKeyRecord; balance: number }): NewOutboxMessage;
  now: Date;
}

export interface ReplaceKeyOutcome {
  oldKey: ApiKeyRecord;
  newKey: ApiKeyRecord;
  /** Stops moved from the old key to the new one. */
  moved: number;
  outboxId: number;
}

export interface PaymentStore {
  /**
   * A paid Checkout Session, in ONE transaction: the payment row (unique on the
   * Stripe event id and on the session id), the credit of the e-mail's most
   * recent active live key or a new live key, the ledger row, the outbox row.
   * A payment already recorded for this event or session changes nothing.
   */
  recordPurchase(request: PurchaseRequest): Promise<PurchaseOutcome>;
  /**
   * One transaction: a new live key for the old key's e-mail, the old key's
   * balance moved to it through two ledger rows, the old key revoked, its
   * unsent e-mails cancelled, the new-key e-mail queued. Throws when the old key is not an active live key with an e-mail.
   */
  replaceKey(request: ReplaceKeyRequest): Promise<ReplaceKeyOutcome>;
  listPayments(): Promise<PaymentRecord[]>;
  /** The payment of one Checkout Session, with when its e-mail (new key or top-up) was sent; null when none was recorded. */
  findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null>;
}
