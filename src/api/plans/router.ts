import type { Router } from '@koa/router';
import type { AppState } from '../../http/state.js';
import { paidRoute, type AsyncMode, type PaidRouteDeps } from '../../calls/paid-route.js';
import type { PlanJobs } from './jobs/index.js';
import { jobLocation } from './jobs/view.js';
import { planStopCount, type PlanRequest } from './schema.js';
import { planLayout } from './problem.js';
import type { PlanOptimizer } from './types.js';
import { validatePlanRequest, validateSyncPlanRequest } from './validate.js';

export interface PlansDeps extends PaidRouteDeps {
  planner: PlanOptimizer;
  /** Asynchronous plans (`Prefer: respond-async`); absent: every plan is answered synchronously. */
  jobs?: PlanJobs;
}

/** Idempotency-Key records of plans are apart from optimize's: the same key on both is 409 idempotency_conflict. */
export const PLANS_IDEMPOTENCY_SCOPE = 'POST /api/v1/plans';

/**
 * POST /api/v1/plans: a paid call as optimize (src/calls/paid-route.ts: auth, key rules, billing of one
 * stop per stop sent and two per shipment (planStopCount), unassigned ones included, Idempotency-Key, deadline), with a plan as the work; with
 * `Prefer: respond-async`, 202 and a job (src/api/plans/jobs/).
 */
export function plansRouter(deps: PlansDeps): Router<AppState> {
  return paidRoute(deps, {
    path: '/api/v1/plans',
    // the asynchronous limits; a synchronous call is held to its own in rejectSync (or here, without jobs)
    validate: deps.jobs ? validatePlanRequest : validateSyncPlanRequest,
    stopCount: planStopCount,
    locations: (request) => planLayout(request).labelled,
    idempotencyScope: PLANS_IDEMPOTENCY_SCOPE,
    work: (request, context) => deps.planner.plan(request, context),
    ...(deps.jobs ? { async: asyncPlans(deps.jobs) } : {}),
  });
}

function asyncPlans({ intake, runner }: PlanJobs): AsyncMode<PlanRequest> {
  return {
    rejectSync: (request) => intake.rejectSync(request),
    order: (request, keyId) => intake.order(request, keyId),
    location: jobLocation,
    accepted: () => runner.wake(),
  };
}
