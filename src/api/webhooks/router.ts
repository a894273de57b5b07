import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../../http/state.js';
import type { WebhookHandler } from '../../payments/types.js';

/**
 * POST /api/v1/webhooks/stripe: the signature is checked on the raw body, which `body`
 * (RequestBodies.raw) keeps in ctx.request.rawBody. 400 invalid_signature changes nothing.
 */
export function stripeWebhookRouter({
  webhook,
  body,
}: {
  webhook: WebhookHandler;
  body: Middleware<AppState>;
}): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/webhooks/stripe', body, async (ctx) => {
    ctx.body = await webhook.handle(ctx.request.rawBody, ctx.get('Stripe-Signature') || undefined);
  });
  return router;
}
