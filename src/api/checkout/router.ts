import { Router } from '@koa/router';
import { ApiError } from '../../errors.js';
import { compileValidator } from '../../http/validate.js';
import type { AppState } from '../../http/state.js';
import { checkoutRequestSchema, type CheckoutRequest } from './schema.js';

/** Creates the payment page of a pack; implemented by the payments module. */
export interface CheckoutProvider {
  createCheckout(request: CheckoutRequest, context: { requestId: string }): Promise<{ url: string }>;
}

const validateCheckout = compileValidator<CheckoutRequest>(checkoutRequestSchema);

/** POST /api/v1/checkout: no key; 400 on a bad body; 503 payment_unavailable when payments are off or failing. */
export function checkoutRouter({ checkout }: { checkout: CheckoutProvider | null }): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/checkout', async (ctx) => {
    const request = validateCheckout(ctx.request.body);
    if (!checkout) {
      throw new ApiError(503, 'payment_unavailable', 'Payments are not configured on this server (STRIPE_SECRET_KEY is not set).');
    }
    ctx.body = await checkout.createCheckout(request, { requestId: ctx.state.requestId });
  });
  return router;
}
