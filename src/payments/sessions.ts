/**
 * What the checkout success page shows: the state of one Stripe Checkout
 * Session. A payment already recorded (the webhook came) answers from the
 * store; otherwise Stripe is asked; an id neither knows is "unknown".
 */
import type Stripe from 'stripe';
import { DomainError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';

export type CheckoutState =
  /** Paid and fulfilled: the key was created or topped up, its e-mail sent or queued. */
  | 'paid'
  /** Stripe says paid; the webhook that fulfils it has not been processed yet. */
  | 'confirming'
  /** Complete but not paid yet (a delayed method such as SEPA Direct Debit). */
  | 'processing'
  /** The customer has not finished the payment page. */
  | 'open'
  /** The payment page expired; nothing was charged. */
  | 'expired'
  | 'unknown';

export interface CheckoutSessionStatus {
  state: CheckoutState;
  stops?: number;
  /** The e-mail the key goes to, partly hidden: d…h@example.com. */
  emailHint?: string;
  /** paid: the key's last 4 characters, whether it is a new key, whether its e-mail was sent. */
  keyLast4?: string;
  createdKey?: boolean;
  mailSent?: boolean;
}

/** Stripe Checkout Session ids: cs_test_… or cs_live_…. */
const SESSION_ID = /^cs_(test|live)_[A-Za-z0-9]{1,250}$/;

export function emailHint(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '…';
  const local = email.slice(0, at);
  return `${local[0]}…${local.length > 2 ? local[local.length - 1] : ''}${email.slice(at)}`;
}

export class CheckoutSessions {
  constructor(
    private readonly store: Store,
    private readonly stripe: Stripe | null,
    private readonly logger: Logger,
  ) {}

  /** Payments are on: STRIPE_SECRET_KEY is set. */
  get enabled(): boolean {
    return this.stripe !== null;
  }

  async status(sessionId: string): Promise<CheckoutSessionStatus> {
    if (!SESSION_ID.test(sessionId)) return { state: 'unknown' };
    const payment = await this.store.findPaymentBySession(sessionId);
    if (payment) {
      return {
        state: 'paid',
        stops: payment.stops,
        emailHint: emailHint(payment.email),
        keyLast4: payment.keyLast4,
        createdKey: payment.createdKey,
        mailSent: payment.mailSentAt !== null,
      };
    }
    if (!this.stripe) return { state: 'unknown' };
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.retrieve(sessionId);
    } catch (err) {
      const e = err as { statusCode?: number; code?: string; type?: string };
      if (e.statusCode === 404 || e.code === 'resource_missing') return { state: 'unknown' };
      this.logger.warn(
        { stripeError: e.type, statusCode: e.statusCode, code: e.code },
        'Stripe did not answer a checkout session lookup',
      );
      throw new DomainError(
        'payment_unavailable',
        'The payment provider cannot be reached to check this payment right now; try again in a minute. If you paid, the key is e-mailed anyway.',
      );
    }
    const stops = Number(session.metadata?.stops);
    const details = {
      ...(Number.isSafeInteger(stops) && stops > 0 ? { stops } : {}),
      ...(session.customer_email ? { emailHint: emailHint(session.customer_email) } : {}),
    };
    if (session.status === 'expired') return { state: 'expired', ...details };
    if (session.status === 'open') return { state: 'open', ...details };
    if (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')
      return { state: 'confirming', ...details };
    return { state: 'processing', ...details };
  }
}
