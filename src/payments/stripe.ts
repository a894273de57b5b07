/** The official Stripe client, pointed at STRIPE_API_BASE when set (tests, proxies). */
import Stripe from 'stripe';
import type { PaymentsConfig } from '../config.js';

export interface StripeClientOptions {
  /** Per-request timeout. Default 10 s. */
  timeoutMs?: number;
  /** Automatic retries on network errors (0 or 1). Default 1. */
  maxNetworkRetries?: number;
}

export function createStripeClient(payments: PaymentsConfig, options: StripeClientOptions = {}): Stripe | null {
  if (!payments.stripeSecretKey) return null;
  const config: ConstructorParameters<typeof Stripe>[1] = {
    timeout: options.timeoutMs ?? 10_000,
    maxNetworkRetries: Math.max(0, Math.min(1, options.maxNetworkRetries ?? 1)),
    telemetry: false,
    appInfo: { name: 'route-optimization-service' },
  };
  if (payments.stripeApiBase) {
    const base = new URL(payments.stripeApiBase);
    const protocol = base.protocol === 'http:' ? 'http' : 'https';
    config.host = base.hostname;
    config.port = base.port || (protocol === 'http' ? '80' : '443');
    config.protocol = protocol;
  }
  return new Stripe(payments.stripeSecretKey, config);
}

/** Verifies a webhook's Stripe-Signature header on the raw body; throws when it does not match. */
export function verifyStripeEvent(rawBody: string, signature: string, secret: string): Stripe.Event {
  return Stripe.webhooks.constructEvent(rawBody, signature, secret);
}

export type { Stripe };
