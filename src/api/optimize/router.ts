import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../../http/state.js';
import { checkSandboxRequest, runChargedCall, type ChargedCallDeps } from '../charged-call.js';
import type { RouteOptimizer } from './types.js';
import { checkDepartureWindow, validateOptimizeRequest } from './validate.js';

export interface OptimizeDeps extends ChargedCallDeps {
  optimizer: RouteOptimizer;
  auth: Middleware<AppState>;
  /** Reads the JSON body: after `auth`, so nothing is read for a request without a valid key. */
  body: Middleware<AppState>;
  /** departureTime must lie within this many days of now. */
  departureWindowDays: number;
  clock: () => Date;
}

/**
 * POST /api/v1/optimize: auth (headers only) → body → validation → Idempotency-Key → key rules
 * (sandbox caps, or the live debit) → optimizer → response. Any failure after
 * the charge was taken (a timeout and a client that went away included) gives
 * it back before the error is answered (src/api/charged-call.ts).
 */
export function optimizeRouter(deps: OptimizeDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/optimize', deps.auth, deps.body, async (ctx) => {
    const key = ctx.state.apiKey!;
    const request = validateOptimizeRequest(ctx.request.body);
    checkDepartureWindow(request.departureTime, deps.clock(), deps.departureWindowDays);
    if (key.kind === 'test') checkSandboxRequest(deps.billing, request.stops.length, [request.start, ...(request.end ? [request.end] : []), ...request.stops]);
    await runChargedCall(ctx, deps, {
      stops: request.stops.length,
      work: (context) => deps.optimizer.optimize(request, context),
    });
  });
  return router;
}
