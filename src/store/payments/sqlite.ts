/** The checkout subject on SQLite: each paid session and each key replacement is one IMMEDIATE transaction. */
import { pickPurchaseKey, planKeyReplacement, replacedKeyMailNote } from '../../billing/rules/charges.js';
import { PAYMENT_BY_SESSION_SQL, toPayment, toPaymentStatus, type KeyRow, type PaymentRow } from '../rows.js';
import { isUniqueViolation, type SqliteDb } from '../sqlite-db.js';
import { balanceHolder, creditRow, insertKeyRow, insertLedgerRow, insertOutboxRow, keyRecord, keyRow, setBalance } from '../sqlite-rows.js';
import type { PaymentRecord, PaymentStatus, PaymentStore, PurchaseOutcome, PurchaseRequest, ReplaceKeyOutcome, ReplaceKeyRequest } from './types.js';

export function sqlitePayments(d: SqliteDb): PaymentStore {
  const paymentByEvent = (eventId: string) => d.get('SELECT id FROM payments WHERE stripe_event_id = ?', eventId) !== undefined;

  return {
    async recordPurchase(r: PurchaseRequest): Promise<PurchaseOutcome> {
      const createdAt = r.now.toISOString();
      try {
        return await d.write((): PurchaseOutcome => {
          if (paymentByEvent(r.stripeEventId)) return { kind: 'duplicate', matched: 'event' };
          if (d.get('SELECT id FROM payments WHERE stripe_session_id = ?', r.stripeSessionId) !== undefined) return { kind: 'duplicate', matched: 'session' };
          const keysOfEmail = d.all<KeyRow>('SELECT * FROM api_keys WHERE email = ? COLLATE NOCASE', r.email).map((row) => balanceHolder(row)!);
          const existing = pickPurchaseKey(keysOfEmail);
          const keyId = existing ? existing.id : insertKeyRow(d, { kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: r.email, createdAt });
          const { ledgerId, balance } = creditRow(d, keyId, r.stops, 'purchase', r.stripeSessionId, createdAt);
          const paymentId = d.run(`INSERT INTO payments (stripe_event_id, stripe_session_id, email, pack_id, stops, amount_cents, currency,
              key_id, ledger_id, created_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          r.stripeEventId, r.stripeSessionId, r.email, r.packId, r.stops, r.amountCents, r.currency, keyId, ledgerId, existing ? 0 : 1, createdAt).id;
          const key = keyRecord(d, keyId);
          const outboxId = insertOutboxRow(d, r.composeMail({ createdKey: !existing, key, balance }), keyId, createdAt);
          return { kind: 'credited', createdKey: !existing, key, balance, paymentId, outboxId };
        });
      } catch (err) {
        // another connection recorded the same event or session between our check and our insert
        if (!isUniqueViolation(err)) throw err;
        return { kind: 'duplicate', matched: await d.attempt(() => paymentByEvent(r.stripeEventId)) ? 'event' : 'session' };
      }
    },

    async replaceKey(r: ReplaceKeyRequest): Promise<ReplaceKeyOutcome> {
      const createdAt = r.now.toISOString();
      return d.write((): ReplaceKeyOutcome => {
        const oldId = r.oldKeyId;
        const plan = planKeyReplacement(balanceHolder(keyRow(d, oldId)), oldId);
        const newId = insertKeyRow(d, { kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: plan.email, createdAt });
        if (plan.moved > 0) {
          const tag = plan.tag(newId);
          setBalance(d, oldId, 0);
          insertLedgerRow(d, { keyId: oldId, delta: -plan.moved, reason: plan.reason, requestId: tag, clientRequestId: null, refundOf: null, createdAt });
          creditRow(d, newId, plan.moved, plan.reason, tag, createdAt);
        }
        d.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', createdAt, oldId);
        d.run(`UPDATE outbox SET cancelled_at = ?, body = '', last_error = ? WHERE key_id = ? AND sent_at IS NULL AND cancelled_at IS NULL`,
          createdAt, replacedKeyMailNote(newId), oldId);
        const oldKey = keyRecord(d, oldId);
        const newKey = keyRecord(d, newId);
        const outboxId = insertOutboxRow(d, r.composeMail({ oldKey, newKey, balance: newKey.balance }), newId, createdAt);
        return { oldKey, newKey, moved: plan.moved, outboxId };
      });
    },

    async listPayments(): Promise<PaymentRecord[]> {
      return d.attempt(() => d.all<PaymentRow>('SELECT p.*, k.last4 FROM payments p JOIN api_keys k ON k.id = p.key_id ORDER BY p.id').map(toPayment));
    },

    async findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null> {
      const row = await d.attempt(() => d.get<PaymentRow & { mail_sent_at: string | null }>(PAYMENT_BY_SESSION_SQL('?'), stripeSessionId));
      return row ? toPaymentStatus(row) : null;
    },
  };
}
