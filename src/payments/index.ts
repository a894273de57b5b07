/**
 * Everything payments and e-mail add to the service: the checkout provider
 * (null when Stripe is not configured: checkout answers 503), the webhook and
 * packs routers, their OpenAPI paths, and the outbox sender with its retry timer.
 */
import type { Router } from '@koa/router';
import type { Billing } from '../billing/billing.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AppState } from '../http/state.js';
import { bodyLimitsOf, RequestBodies, WEBHOOK_BODY_LIMIT_BYTES } from '../http/body.js';
import type { Store } from '../store/types.js';
import type { CheckoutProvider } from '../api/checkout/router.js';
import { packsRouter } from '../api/packs/router.js';
import { stripeWebhookRouter } from '../api/webhooks/router.js';
import { Outbox, type OutboxOptions } from '../mail/outbox.js';
import { createMailSender, type MailSender, type MailSenderOptions } from '../mail/sender.js';
import { StripeCheckout } from './checkout.js';
import { paymentOpenApiPaths } from './openapi.js';
import { listPacks, type Pack } from './packs.js';
import { CheckoutSessions } from './sessions.js';
import { createStripeClient, type StripeClientOptions } from './stripe.js';
import { StripeWebhook } from './webhook.js';

export interface PaymentDeps {
  store: Store;
  /** Not used yet; accepted so the wiring stays stable. */
  billing?: Billing;
  logger: Logger;
  clock?: () => Date;
  /** Retry interval and backoff of the outbox. */
  outbox?: OutboxOptions;
  /** Default true: the periodic outbox retry runs. */
  startOutbox?: boolean;
  stripe?: StripeClientOptions;
  mail?: MailSenderOptions;
  /** Replaces the SMTP / .eml sender (tests). */
  mailSender?: MailSender;
  /** Reads the webhook's body; default: limits from the config, a budget of its own. */
  bodies?: RequestBodies;
}

export interface PaymentServices {
  checkout: CheckoutProvider | null;
  /** The webhook and packs routers: mount them like the others. */
  routers: Router<AppState>[];
  openApiPaths: Record<string, object>;
  outbox: Outbox;
  packs: Pack[];
  webhook: StripeWebhook;
  /** The state of a checkout session, for the console's success page. */
  sessions: CheckoutSessions;
  close(): Promise<void>;
}

export function buildPaymentServices(config: Config, deps: PaymentDeps): PaymentServices {
  const logger = deps.logger.child({ module: 'payments' });
  const clock = deps.clock ?? (() => new Date());
  const sender = deps.mailSender ?? createMailSender(config.mail, logger, deps.mail);
  const outbox = new Outbox(deps.store, sender, logger, clock, deps.outbox);
  const stripe = createStripeClient(config.payments, deps.stripe);
  const checkout = stripe ? new StripeCheckout(stripe, config, logger) : null;
  const webhook = new StripeWebhook(deps.store, outbox, config, logger, clock);
  const packs = listPacks(config.payments);
  const bodies = deps.bodies ?? new RequestBodies(bodyLimitsOf(config));
  if (!stripe) logger.info('payments off: STRIPE_SECRET_KEY is not set, checkout answers 503 payment_unavailable');
  if (stripe && !config.payments.stripeWebhookSecret) logger.warn('STRIPE_WEBHOOK_SECRET is not set: paid checkouts cannot be fulfilled');
  logger.info({ mail: sender.mode, ...(sender.mode === 'file' ? { outboxDir: config.mail.outboxDir } : {}) }, 'e-mail delivery ready');
  if (deps.startOutbox !== false) {
    outbox.start();
    // messages left from a previous run (SMTP was down, the process stopped)
    void outbox.kick().catch((err) => logger.warn({ err }, 'outbox delivery failed'));
  }
  return {
    checkout,
    routers: [stripeWebhookRouter({ webhook, body: bodies.raw(WEBHOOK_BODY_LIMIT_BYTES) }), packsRouter({ packs })],
    openApiPaths: paymentOpenApiPaths,
    outbox,
    packs,
    webhook,
    sessions: new CheckoutSessions(deps.store, stripe, logger),
    async close() {
      await outbox.close();
    },
  };
}

export type { Outbox, OutboxOptions } from '../mail/outbox.js';
