/**
 * The checkout subject, once for both databases: it writes `payments`, and asks the keys, ledger and outbox
 * subjects for their rows in the same transaction. Purchases for one e-mail serialize (PostgreSQL: an advisory
 * lock; SQLite: one writer at a time), so two paid sessions of a new address create one key; a key replacement
 * takes the same lock first.
 */
import { pickPurchaseKey, planKeyReplacement, replacedKeyMailNote } from '../../billing/rules/charges.js';
import { insertKeyRow, keyRecord, keyRow, keysOfEmail, revokeKeyRow } from '../keys/rows.js';
import { creditKey, withdrawKey } from '../ledger/store.js';
import { cancelMailOf, insertOutboxRow } from '../outbox/store.js';
import { PAYMENT_BY_SESSION_SQL, balanceHolder, toPayment, toPaymentStatus, type PaymentRow } from '../rows.js';
import { one, type Dialect, type SqlDb, type Work } from '../sql.js';
import type {
  PaymentRecord,
  PaymentStatus,
  PaymentStore,
  PurchaseOutcome,
  PurchaseRequest,
  ReplaceKeyOutcome,
  ReplaceKeyRequest,
} from './types.js';

function* lockPurchasesOf(d: Dialect, email: string): Work<void> {
  const lock = d.serialize({ kind: 'purchases-of', email });
  if (lock) yield lock;
}

const paymentOfEvent = (eventId: string): Work<{ id: number } | undefined> =>
  one('SELECT id FROM payments WHERE stripe_event_id = $1', [eventId]);

export function paymentStore(db: SqlDb): PaymentStore {
  const d = db.dialect;
  return {
    async recordPurchase(r: PurchaseRequest): Promise<PurchaseOutcome> {
      const createdAt = r.now.toISOString();
      try {
        return await db.write(function* (): Work<PurchaseOutcome> {
          // purchases for one e-mail one at a time: two paid sessions of a new address create one key, not two
          yield* lockPurchasesOf(d, r.email);
          if (yield* paymentOfEvent(r.stripeEventId)) return { kind: 'duplicate', matched: 'event' };
          if (yield* one('SELECT id FROM payments WHERE stripe_session_id = $1', [r.stripeSessionId]))
            return { kind: 'duplicate', matched: 'session' };
          const existing = pickPurchaseKey((yield* keysOfEmail(d, r.email)).map((row) => balanceHolder(row)!));
          const keyId = existing
            ? existing.id
            : yield* insertKeyRow({
                kind: 'live',
                keyHash: r.newKey.keyHash,
                last4: r.newKey.last4,
                email: r.email,
                createdAt,
              });
          const { ledgerId, balance } = yield* creditKey(d, keyId, r.stops, 'purchase', r.stripeSessionId, createdAt);
          const payment = yield* one<{ id: number }>(
            `INSERT INTO payments (stripe_event_id, stripe_session_id, email, pack_id, stops, amount_cents, currency,
              key_id, ledger_id, created_key, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
            [
              r.stripeEventId,
              r.stripeSessionId,
              r.email,
              r.packId,
              r.stops,
              r.amountCents,
              r.currency,
              keyId,
              ledgerId,
              !existing,
              createdAt,
            ],
          );
          const key = yield* keyRecord(d, keyId);
          const outboxId = yield* insertOutboxRow(
            r.composeMail({ createdKey: !existing, key, balance }),
            keyId,
            createdAt,
          );
          return { kind: 'credited', createdKey: !existing, key, balance, paymentId: payment!.id, outboxId };
        });
      } catch (err) {
        // another instance or connection recorded the same event or session between our check and our insert: our transaction rolled back whole
        if (!db.isUniqueViolation(err)) throw err;
        return {
          kind: 'duplicate',
          matched:
            (await db.rows('SELECT id FROM payments WHERE stripe_event_id = $1', [r.stripeEventId])).length > 0
              ? 'event'
              : 'session',
        };
      }
    },

    async replaceKey(r: ReplaceKeyRequest): Promise<ReplaceKeyOutcome> {
      const createdAt = r.now.toISOString();
      return db.write(function* (): Work<ReplaceKeyOutcome> {
        const oldId = r.oldKeyId;
        // a purchase for the same e-mail waits for us (and then credits the new key): the purchases' lock, taken first as they do
        const email = (yield* keyRow(d, oldId))?.email;
        if (email) yield* lockPurchasesOf(d, email);
        // the row lock holds off debits of the old key until it is revoked: the balance moved is the final one
        const plan = planKeyReplacement(balanceHolder(yield* keyRow(d, oldId, true)), oldId);
        const newId = yield* insertKeyRow({
          kind: 'live',
          keyHash: r.newKey.keyHash,
          last4: r.newKey.last4,
          email: plan.email,
          createdAt,
        });
        if (plan.moved > 0) {
          const tag = plan.tag(newId);
          yield* withdrawKey(oldId, plan.moved, plan.reason, tag, createdAt);
          yield* creditKey(d, newId, plan.moved, plan.reason, tag, createdAt);
        }
        yield* revokeKeyRow(oldId, createdAt);
        yield* cancelMailOf(oldId, replacedKeyMailNote(newId), createdAt);
        const oldKey = yield* keyRecord(d, oldId);
        const newKey = yield* keyRecord(d, newId);
        const outboxId = yield* insertOutboxRow(
          r.composeMail({ oldKey, newKey, balance: newKey.balance }),
          newId,
          createdAt,
        );
        return { oldKey, newKey, moved: plan.moved, outboxId };
      });
    },

    async listPayments(): Promise<PaymentRecord[]> {
      return (
        await db.rows<PaymentRow>(
          'SELECT p.*, k.last4 FROM payments p JOIN api_keys k ON k.id = p.key_id ORDER BY p.id',
        )
      ).map(toPayment);
    },

    async findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null> {
      const [row] = await db.rows<PaymentRow & { mail_sent_at: string | null }>(PAYMENT_BY_SESSION_SQL, [
        stripeSessionId,
      ]);
      return row ? toPaymentStatus(row) : null;
    },
  };
}
