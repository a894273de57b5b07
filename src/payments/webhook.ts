/**
 * Stripe webhook: verifies the signature on the raw body, then fulfils paid
 * Checkout Sessions. One store transaction records the payment (unique on the
 * event id and on the session id), credits the e-mail's most recent active
 * live key or creates one, and queues the e-mail; the outbox then sends it.
 */
import type Stripe from 'stripe';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import type { Logger } from '../logger.js';
import { newKeyMaterial } from '../billing/keys.js';
import { newKeyMail, topUpMail } from '../mail/messages.js';
import type { Outbox } from '../mail/outbox.js';
import type { Store } from '../store/types.js';
import { isPackId, PACK_STOPS } from './packs.js';
import { verifyStripeEvent } from './stripe.js';

import type { WebhookHandler } from './types.js';

export type WebhookResult =
  | { received: true; result: 'credited'; createdKey: boolean }
  | { received: true; result: 'duplicate' }
  | { received: true; result: 'ignored'; reason: string };

const invalidSignature = (message: string): DomainError => new DomainError('invalid_signature', message);

export class StripeWebhook implements WebhookHandler {
  constructor(
    private readonly store: Store,
    private readonly outbox: Outbox,
    private readonly config: Pick<Config, 'payments' | 'publicBaseUrl'>,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Throws 400 invalid_signature, having changed nothing, unless the body is signed with STRIPE_WEBHOOK_SECRET. */
  verify(rawBody: string | undefined, signature: string | undefined): Stripe.Event {
    const secret = this.config.payments.stripeWebhookSecret;
    if (!secret)
      throw invalidSignature('Webhooks are not configured on this server (STRIPE_WEBHOOK_SECRET is not set).');
    if (!signature) throw invalidSignature('Missing Stripe-Signature header.');
    try {
      return verifyStripeEvent(rawBody ?? '', signature, secret);
    } catch {
      throw invalidSignature('The Stripe-Signature header does not match the payload (or its timestamp is too old).');
    }
  }

  async handle(rawBody: string | undefined, signature: string | undefined): Promise<WebhookResult> {
    const event = this.verify(rawBody, signature);
    switch (event.type) {
      case 'checkout.session.completed':
        if (event.data.object.payment_status !== 'paid')
          return this.ignored(event, `payment_status ${event.data.object.payment_status}`);
        return this.fulfil(event, event.data.object);
      case 'checkout.session.async_payment_succeeded':
        return this.fulfil(event, event.data.object);
      default:
        return this.ignored(event, 'event type not handled');
    }
  }

  private ignored(event: Stripe.Event, reason: string): WebhookResult {
    this.logger.info({ eventId: event.id, type: event.type, reason }, 'Stripe event ignored');
    return { received: true, result: 'ignored', reason };
  }

  private async fulfil(event: Stripe.Event, session: Stripe.Checkout.Session): Promise<WebhookResult> {
    const packId = session.metadata?.packId;
    if (!isPackId(packId)) {
      this.logger.warn(
        { eventId: event.id, sessionId: session.id, packId },
        'paid checkout session without a known pack: not ours, ignored',
      );
      return this.ignored(event, 'no known pack in metadata');
    }
    const email = session.customer_email ?? session.customer_details?.email ?? session.metadata?.email ?? null;
    if (!email) {
      this.logger.error(
        { eventId: event.id, sessionId: session.id },
        'paid checkout session without an e-mail address: no key issued',
      );
      return this.ignored(event, 'no e-mail address');
    }
    const stops = PACK_STOPS[packId];
    const { key, keyHash, last4 } = newKeyMaterial('live');
    const publicBaseUrl = this.config.publicBaseUrl;
    const outcome = await this.store.recordPurchase({
      stripeEventId: event.id,
      stripeSessionId: session.id,
      email,
      packId,
      stops,
      amountCents: session.amount_total ?? 0,
      currency: session.currency ?? this.config.payments.currency,
      newKey: { keyHash, last4 },
      composeMail: ({ createdKey, key: record, balance }) =>
        createdKey
          ? newKeyMail({ to: email, key, stops, balance, packId, publicBaseUrl })
          : topUpMail({ to: email, last4: record.last4, stops, balance, packId, publicBaseUrl }),
      now: this.clock(),
    });
    if (outcome.kind === 'duplicate') {
      this.logger.info(
        { eventId: event.id, sessionId: session.id, matched: outcome.matched },
        'Stripe event already fulfilled: nothing credited',
      );
      return { received: true, result: 'duplicate' };
    }
    this.logger.info(
      {
        eventId: event.id,
        sessionId: session.id,
        paymentId: outcome.paymentId,
        keyId: outcome.key.id,
        last4: outcome.key.last4,
        createdKey: outcome.createdKey,
        stops,
        balance: outcome.balance,
      },
      outcome.createdKey ? 'pack paid: new live key issued' : 'pack paid: live key topped up',
    );
    // deliver right away, without holding Stripe's request; failures stay in the outbox for the retry timer
    void this.outbox.kick().catch((err) => this.logger.warn({ err }, 'outbox delivery failed'));
    return { received: true, result: 'credited', createdKey: outcome.createdKey };
  }
}
