import { Router } from '@koa/router';
import type { Billing } from '../../billing/billing.js';
import { requireKey } from '../../http/auth.js';
import type { AppState } from '../../http/state.js';

/** GET /api/v1/balance: live → {stopsBalance}; test → the sandbox quotas. */
export function balanceRouter({ billing }: { billing: Billing }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/v1/balance', requireKey(billing), async (ctx) => {
    const key = ctx.state.apiKey!;
    ctx.body = key.kind === 'live'
      ? { stopsBalance: key.balance }
      : { sandbox: true, ...(await billing.sandboxQuotas(key)) };
  });
  return router;
}
