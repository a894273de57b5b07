import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { DomainError } from '../../errors.js';
import type { CheckoutLimiter } from '../../http/limits.js';
import { compileValidator } from '../../http/validate.js';
import type { AppState } from '../../http/state.js';
import type { CheckoutProvider, CheckoutRequest } from '../../payments/types.js';
import { checkoutRequestSchema } from './schema.js';

const validateCheckout = compileValidator<CheckoutRequest>(checkoutRequestSchema);

export interface CheckoutRouterDeps {
  checkout: CheckoutProvider | null;
  /** Reads the (anonymous, small) body. */
  body: Middleware<AppState>;
  /** Sessions per address and in total; absent: unlimited (tests of the provider alone). */
  limiter?: CheckoutLimiter;
}

/**
 * POST /api/v1/checkout: no key; 400 on a bad body; 503 payment_unavailable when payments are off or failing;
 * 429 rate_limited past the per-address or global session limits. Only a valid request within the limits
 * reaches the payment provider.
 */
export function checkoutRouter({ checkout, body, limiter }: CheckoutRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/checkout', body, async (ctx) => {
    const request = validateCheckout(ctx.request.body);
    if (!checkout) {
      throw new DomainError(
        'payment_unavailable',
        'Payments are not configured on this server (STRIPE_SECRET_KEY is not set).',
      );
    }
    limiter?.take(ctx.ip);
    ctx.body = await checkout.createCheckout(request, { requestId: ctx.state.requestId });
  });
  return router;
}
