/**
 * The checkout subject on PostgreSQL: purchases for one e-mail serialize on an advisory lock, so two paid sessions
 * of a new address create one key, and a key replacement takes the same lock first.
 */
import { pickPurchaseKey, planKeyReplacement, replacedKeyMailNote } from '../../billing/rules/charges.js';
import { isUniqueViolation, type PgDb, type Tx } from '../postgres-db.js';
import { KEY_COLUMNS, balanceHolder, creditRow, insertKeyRow, insertLedgerRow, insertOutboxRow, keyRecord, keyRow, setBalance } from '../postgres-rows.js';
import { PAYMENT_BY_SESSION_SQL, toPayment, toPaymentStatus, type KeyRow, type PaymentRow } from '../rows.js';
import type { PaymentRecord, PaymentStatus, PaymentStore, PurchaseOutcome, PurchaseRequest, ReplaceKeyOutcome, ReplaceKeyRequest } from './types.js';

const lockPurchasesOf = (t: Tx, email: string) => t.run(`SELECT pg_advisory_xact_lock(hashtext('purchase:' || lower($1)))`, [email]);

export function postgresPayments(db: PgDb): PaymentStore {
  return {
    async recordPurchase(r: PurchaseRequest): Promise<PurchaseOutcome> {
      const createdAt = r.now.toISOString();
      try {
        return await db.tx(async (t): Promise<PurchaseOutcome> => {
          // purchases for one e-mail one at a time: two paid sessions of a new address create one key, not two
          await lockPurchasesOf(t, r.email);
          if (await t.one('SELECT 1 FROM payments WHERE stripe_event_id = $1', [r.stripeEventId])) return { kind: 'duplicate', matched: 'event' };
          if (await t.one('SELECT 1 FROM payments WHERE stripe_session_id = $1', [r.stripeSessionId])) return { kind: 'duplicate', matched: 'session' };
          const keysOfEmail = await t.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE lower(email) = lower($1) FOR UPDATE`, [r.email]);
          const existing = pickPurchaseKey(keysOfEmail.map((row) => balanceHolder(row)!));
          const keyId = existing ? existing.id : await insertKeyRow(t, { kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: r.email, createdAt });
          const { ledgerId, balance } = await creditRow(t, keyId, r.stops, 'purchase', r.stripeSessionId, createdAt);
          const payment = await t.one<{ id: number }>(`INSERT INTO payments (stripe_event_id, stripe_session_id, email, pack_id, stops, amount_cents, currency,
              key_id, ledger_id, created_key, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
          [r.stripeEventId, r.stripeSessionId, r.email, r.packId, r.stops, r.amountCents, r.currency, keyId, ledgerId, !existing, createdAt]);
          const key = await keyRecord(t, keyId);
          const outboxId = await insertOutboxRow(t, r.composeMail({ createdKey: !existing, key, balance }), keyId, createdAt);
          return { kind: 'credited', createdKey: !existing, key, balance, paymentId: payment!.id, outboxId };
        });
      } catch (err) {
        // another instance recorded the same event or session between our check and our insert: our transaction rolled back whole
        if (!isUniqueViolation(err)) throw err;
        const { rows } = await db.q('SELECT 1 FROM payments WHERE stripe_event_id = $1', [r.stripeEventId]);
        return { kind: 'duplicate', matched: rows.length > 0 ? 'event' : 'session' };
      }
    },

    async replaceKey(r: ReplaceKeyRequest): Promise<ReplaceKeyOutcome> {
      const createdAt = r.now.toISOString();
      return db.tx(async (t): Promise<ReplaceKeyOutcome> => {
        // a purchase for the same e-mail waits for us (and then credits the new key): the purchases' lock, taken first as they do
        const email = (await keyRow(t, r.oldKeyId))?.email;
        if (email) await lockPurchasesOf(t, email);
        // the row lock holds off debits of the old key until it is revoked: the balance moved is the final one
        const oldId = r.oldKeyId;
        const plan = planKeyReplacement(balanceHolder(await keyRow(t, oldId, true)), oldId);
        const newId = await insertKeyRow(t, { kind: 'live', keyHash: r.newKey.keyHash, last4: r.newKey.last4, email: plan.email, createdAt });
        if (plan.moved > 0) {
          const tag = plan.tag(newId);
          await setBalance(t, oldId, 0);
          await insertLedgerRow(t, { keyId: oldId, delta: -plan.moved, reason: plan.reason, requestId: tag, refundOf: null, createdAt });
          await creditRow(t, newId, plan.moved, plan.reason, tag, createdAt);
        }
        await t.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [createdAt, oldId]);
        await t.run(`UPDATE outbox SET cancelled_at = $1, body = '', last_error = $2
          WHERE key_id = $3 AND sent_at IS NULL AND cancelled_at IS NULL`, [createdAt, replacedKeyMailNote(newId), oldId]);
        const oldKey = await keyRecord(t, oldId);
        const newKey = await keyRecord(t, newId);
        const outboxId = await insertOutboxRow(t, r.composeMail({ oldKey, newKey, balance: newKey.balance }), newId, createdAt);
        return { oldKey, newKey, moved: plan.moved, outboxId };
      });
    },

    async listPayments(): Promise<PaymentRecord[]> {
      const { rows } = await db.q<PaymentRow>('SELECT p.*, k.last4 FROM payments p JOIN api_keys k ON k.id = p.key_id ORDER BY p.id');
      return rows.map(toPayment);
    },

    async findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null> {
      const { rows } = await db.q<PaymentRow & { mail_sent_at: string | null }>(PAYMENT_BY_SESSION_SQL('$1'), [stripeSessionId]);
      return rows[0] ? toPaymentStatus(rows[0]) : null;
    },
  };
}
