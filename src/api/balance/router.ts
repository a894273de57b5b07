import { Router } from '@koa/router';
import type { Billing } from '../../billing/billing.js';
import type { Middleware } from 'koa';
import type { AppState } from '../../http/state.js';

/** GET /api/v1/balance: live → {stopsBalance}; test → the sandbox quotas. */
export function balanceRouter({ billing, auth }: { billing: Billing; auth: Middleware<AppState> }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/v1/balance', auth, async (ctx) => {
    const key = ctx.state.apiKey!;
    ctx.body =
      key.kind === 'live' ? { stopsBalance: key.balance } : { sandbox: true, ...(await billing.sandboxQuotas(key)) };
  });
  return router;
}
