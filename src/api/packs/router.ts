import { Router } from '@koa/router';
import type { AppState } from '../../http/state.js';
import type { Pack } from '../../payments/packs.js';

/** GET /api/v1/packs (extension, no key): the prepaid packs, their stops and prices. */
export function packsRouter({ packs }: { packs: Pack[] }): Router<AppState> {
  const router = new Router<AppState>();
  const body = { packs: packs.map(({ id, stops, priceCents, currency }) => ({ id, stops, priceCents, currency })) };
  router.get('/api/v1/packs', (ctx) => {
    ctx.body = body;
  });
  return router;
}
