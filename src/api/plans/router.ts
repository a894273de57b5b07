import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../../http/state.js';
import { checkSandboxRequest, runChargedCall, type ChargedCallDeps } from '../charged-call.js';
import type { Location } from '../optimize/schema.js';
import { checkDepartureWindow } from '../optimize/validate.js';
import type { PlanRequest } from './schema.js';
import type { PlanOptimizer } from './types.js';
import { validatePlanRequest } from './validate.js';

export interface PlansDeps extends ChargedCallDeps {
  planner: PlanOptimizer;
  auth: Middleware<AppState>;
  /** Reads the JSON body: after `auth`, so nothing is read for a request without a valid key. */
  body: Middleware<AppState>;
  /** departureTime must lie within this many days of now. */
  departureWindowDays: number;
  clock: () => Date;
}

/** Idempotency-Key records of plans are apart from optimize's: the same key on both is 409 idempotency_conflict. */
export const PLANS_IDEMPOTENCY_SCOPE = 'POST /api/v1/plans';

/**
 * POST /api/v1/plans: the same auth, key rules, billing (one stop per stop sent, unassigned ones
 * included), Idempotency-Key and deadline as optimize (src/api/charged-call.ts), with a plan as the work.
 */
export function plansRouter(deps: PlansDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/plans', deps.auth, deps.body, async (ctx) => {
    const key = ctx.state.apiKey!;
    const request = validatePlanRequest(ctx.request.body);
    checkDepartureWindow(request.departureTime, deps.clock(), deps.departureWindowDays);
    if (key.kind === 'test') checkSandboxRequest(deps.billing, request.stops.length, locationsOf(request));
    await runChargedCall(ctx, deps, {
      stops: request.stops.length,
      idempotencyScope: PLANS_IDEMPOTENCY_SCOPE,
      work: (context) => deps.planner.plan(request, context),
    });
  });
  return router;
}

function locationsOf(request: PlanRequest): Location[] {
  return [...request.vehicles.flatMap((v) => [v.start, ...(v.end ? [v.end] : [])]), ...request.stops.map((s) => s as Location)];
}
