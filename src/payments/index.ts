/**
 * Everything payments and e-mail add to the service: the checkout provider
 * (null when Stripe is not configured: checkout answers 503), the webhook
 * handler, the packs, and the outbox sender with its retry timer. The API's
 * routers for them are built by the wiring (services.ts) from this.
 */
import type { Billing } from '../billing/billing.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';
import { Outbox, type OutboxOptions } from '../mail/outbox.js';
import { createMailSender, type MailSender, type MailSenderOptions } from '../mail/sender.js';
import { StripeCheckout } from './checkout.js';
import { listPacks } from './packs.js';
import type { PaymentService } from './types.js';
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
}

export interface PaymentServices extends PaymentService {
  outbox: Outbox;
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
  if (!stripe) logger.info('payments off: STRIPE_SECRET_KEY is not set, checkout answers 503 payment_unavailable');
  if (stripe && !config.payments.stripeWebhookSecret)
    logger.warn('STRIPE_WEBHOOK_SECRET is not set: paid checkouts cannot be fulfilled');
  logger.info(
    { mail: sender.mode, ...(sender.mode === 'file' ? { outboxDir: config.mail.outboxDir } : {}) },
    'e-mail delivery ready',
  );
  if (deps.startOutbox !== false) {
    outbox.start();
    // messages left from a previous run (SMTP was down, the process stopped)
    void outbox.kick().catch((err) => logger.warn({ err }, 'outbox delivery failed'));
  }
  return {
    checkout,
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
