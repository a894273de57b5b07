/**
 * What the payments part offers the rest of the service: the packs on sale (packs.ts), a checkout provider that
 * creates the payment page of a pack, and the handler of a verified Stripe webhook event (webhook.ts). The API's
 * routers depend on these; payments never imports the API.
 */
import type { Pack, PackId } from './packs.js';
import type { WebhookResult } from './webhook.js';

/** A request for the payment page of one pack; the live key is sent to `email` once it is paid. */
export interface CheckoutRequest {
  email: string;
  packId: PackId;
}

/** Creates the payment page of a pack (Stripe Checkout here); null in the wiring when payments are off. */
export interface CheckoutProvider {
  createCheckout(request: CheckoutRequest, context: { requestId: string }): Promise<{ url: string }>;
}

/** Fulfils a paid checkout from its webhook event, once the event's signature is verified on the raw body. */
export interface WebhookHandler {
  handle(rawBody: string | undefined, signature: string | undefined): Promise<WebhookResult>;
}

/** The payments part as the API sees it. */
export interface PaymentService {
  /** Null when payments are off (STRIPE_SECRET_KEY unset): checkout answers 503. */
  checkout: CheckoutProvider | null;
  webhook: WebhookHandler;
  packs: Pack[];
}
