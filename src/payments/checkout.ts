/** POST /api/v1/checkout: a Stripe Checkout Session for one pack. */
import type Stripe from 'stripe';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CheckoutProvider, CheckoutRequest } from './types.js';
import { listPacks, packName } from './packs.js';

export class StripeCheckout implements CheckoutProvider {
  constructor(
    private readonly stripe: Stripe,
    private readonly config: Pick<Config, 'payments' | 'publicBaseUrl'>,
    private readonly logger: Logger,
  ) {}

  async createCheckout(request: CheckoutRequest, context: { requestId: string }): Promise<{ url: string }> {
    const pack = listPacks(this.config.payments).find((p) => p.id === request.packId);
    if (!pack) throw new DomainError('invalid_request', `Unknown pack "${request.packId}".`);
    const base = this.config.publicBaseUrl;
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create({
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: pack.currency,
              unit_amount: pack.priceCents,
              product_data: { name: packName(pack), metadata: { packId: pack.id } },
            },
          },
        ],
        customer_email: request.email,
        metadata: { packId: pack.id, stops: String(pack.stops), email: request.email },
        payment_intent_data: { metadata: { packId: pack.id, stops: String(pack.stops) } },
        success_url: `${base}/console/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${base}/console/checkout/cancel`,
      });
    } catch (err) {
      const e = err as { type?: string; statusCode?: number; code?: string; message?: string };
      this.logger.warn(
        {
          requestId: context.requestId,
          stripeError: e.type,
          statusCode: e.statusCode,
          code: e.code,
          message: e.message,
        },
        'Stripe did not create the checkout session',
      );
      throw new DomainError(
        'payment_unavailable',
        'The payment provider is unavailable right now; please try again in a few minutes.',
      );
    }
    if (!session.url) {
      this.logger.warn(
        { requestId: context.requestId, sessionId: session.id },
        'Stripe returned a checkout session without a url',
      );
      throw new DomainError(
        'payment_unavailable',
        'The payment provider returned no payment page; please try again in a few minutes.',
      );
    }
    this.logger.info(
      { requestId: context.requestId, sessionId: session.id, packId: pack.id },
      'checkout session created',
    );
    return { url: session.url };
  }
}
