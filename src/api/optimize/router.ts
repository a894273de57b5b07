import type { Router } from '@koa/router';
import type { AppState } from '../../http/state.js';
import { paidRoute, type PaidRouteDeps } from '../../calls/paid-route.js';
import { optimizeLocations } from './locations.js';
import type { RouteOptimizer } from './types.js';
import { validateOptimizeRequest } from './validate.js';

export interface OptimizeDeps extends PaidRouteDeps {
  optimizer: RouteOptimizer;
}

/**
 * POST /api/v1/optimize: a paid call (src/calls/paid-route.ts: auth, body, validation, key rules,
 * Idempotency-Key, the charge given back on any failure) whose work is one route.
 */
export function optimizeRouter(deps: OptimizeDeps): Router<AppState> {
  return paidRoute(deps, {
    path: '/api/v1/optimize',
    validate: validateOptimizeRequest,
    locations: optimizeLocations,
    work: (request, context) => deps.optimizer.optimize(request, context),
  });
}
