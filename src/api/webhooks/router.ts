import { Router } from '@koa/router';
import type { AppState } from '../../http/state.js';
import type { StripeWebhook } from '../../payments/webhook.js';

/**
 * POST /api/v1/webhooks/stripe: the signature is checked on the raw body that
 * @koa/bodyparser keeps in ctx.request.rawBody. 400 invalid_signature changes nothing.
 */
export function stripeWebhookRouter({ webhook }: { webhook: StripeWebhook }): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/webhooks/stripe', async (ctx) => {
    const raw = (ctx.request as unknown as { rawBody?: string }).rawBody;
    ctx.body = await webhook.handle(raw, ctx.get('Stripe-Signature') || undefined);
  });
  return router;
}
