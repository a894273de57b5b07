import type { Router } from '@koa/router';
import type { AppState } from '../../http/state.js';
import type { Logger } from '../../logger.js';
import { paidRoute, type PaidRouteDeps } from '../../calls/paid-route.js';
import { vroomErrors } from './errors.js';
import type { VroomOptimizer } from './pipeline.js';
import { validateVroomRequest } from './validate.js';

export interface VroomDeps extends PaidRouteDeps {
  vroom: VroomOptimizer;
  logger: Logger;
  /** A call failed because the store could not take it (readiness looks again). */
  storageUnavailable?(): void;
}

/** Idempotency-Key records of this endpoint are its own: the same key on another endpoint is 409 idempotency_conflict. */
export const VROOM_IDEMPOTENCY_SCOPE = 'POST /api/v1/vroom';

/**
 * POST /api/v1/vroom: VROOM's input and output formats (src/api/vroom/schema.ts, answer.ts) on a paid call as
 * plans (src/calls/paid-route.ts: auth, key rules, one stop charged per task, a shipment two, Idempotency-Key,
 * admission, deadline). Every error of the route, the key check's included, is answered in VROOM's body
 * (src/api/vroom/errors.ts).
 */
export function vroomRouter(deps: VroomDeps): Router<AppState> {
  const errors = vroomErrors(deps.logger, { storageUnavailable: () => deps.storageUnavailable?.() });
  return paidRoute(
    // the key check is the route's first middleware: wrapping it puts every later error through VROOM's body
    { ...deps, auth: (ctx, next) => errors(ctx, () => deps.auth(ctx, next)) },
    {
      path: '/api/v1/vroom',
      validate: validateVroomRequest,
      locations: (call) => call.labelled,
      idempotencyScope: VROOM_IDEMPOTENCY_SCOPE,
      work: (call, context) => deps.vroom.solve(call, context),
    },
  );
}
