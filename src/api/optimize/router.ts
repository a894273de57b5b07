import { Router } from '@koa/router';
import { ApiError } from '../../errors.js';
import type { Billing } from '../../billing/billing.js';
import { requireKey } from '../../http/auth.js';
import type { AppState } from '../../http/state.js';
import { isAddress, type OptimizeRequest } from './schema.js';
import type { RouteOptimizer, RouteResult } from './types.js';
import { validateOptimizeRequest } from './validate.js';

export interface OptimizeDeps {
  billing: Billing;
  optimizer: RouteOptimizer;
}

/**
 * POST /api/v1/optimize: auth → validation → key rules (sandbox caps, or the
 * live debit) → optimizer → response. Any failure after the charge was taken
 * (including a client that went away) gives it back before the error is answered.
 */
export function optimizeRouter({ billing, optimizer }: OptimizeDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/optimize', requireKey(billing), async (ctx) => {
    const key = ctx.state.apiKey!;
    const request = validateOptimizeRequest(ctx.request.body);
    if (key.kind === 'test') checkSandboxRequest(billing, request);

    const controller = new AbortController();
    const onClose = (): void => { if (!ctx.res.writableEnded) controller.abort(new ApiError(499, 'client_closed', 'The client closed the connection.')); };
    ctx.req.once('close', onClose);
    try {
      const charge = await billing.openCharge(key, request.stops.length, ctx.state.requestId);
      let route: RouteResult;
      let fields;
      try {
        route = await optimizer.optimize(request, { sandbox: key.kind === 'test', requestId: ctx.state.requestId, signal: controller.signal });
        controller.signal.throwIfAborted();
        fields = await charge.settle();
      } catch (err) {
        await charge.cancel();
        throw err;
      }
      ctx.body = { ...route, ...fields };
    } finally {
      ctx.req.off('close', onClose);
    }
  });
  return router;
}

function checkSandboxRequest(billing: Billing, request: OptimizeRequest): void {
  billing.checkSandboxCallSize(request.stops.length);
  const locations = [request.start, ...(request.end ? [request.end] : []), ...request.stops];
  if (locations.some(isAddress)) {
    throw new ApiError(400, 'sandbox_addresses_unsupported',
      'Test keys accept coordinates only (latitude, longitude); addresses need a live key.');
  }
}
