/**
 * createApp(deps): the Koa application without listen. main.ts listens;
 * tests call it through app.callback() or on port 0.
 */
import Koa from 'koa';
import { Router } from '@koa/router';
import type { Billing } from './billing/billing.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Store } from './store/types.js';
import { accessLog } from './http/access-log.js';
import { errorHandler } from './http/errors.js';
import { requestId } from './http/request-id.js';
import type { AppState } from './http/state.js';
import { balanceRouter } from './api/balance/router.js';
import { checkoutRouter } from './api/checkout/router.js';
import type { CheckoutProvider } from './payments/types.js';
import { openApiRouter } from './api/openapi/router.js';
import { optimizeRouter } from './api/optimize/router.js';
import { optimizeRequestSchema } from './api/optimize/schema.js';
import type { RouteOptimizer } from './api/optimize/types.js';
import { plansRouter } from './api/plans/router.js';
import { vroomRouter } from './api/vroom/router.js';
import type { VroomOptimizer } from './api/vroom/pipeline.js';
import { vroomBodySizeSchema } from './api/vroom/schema.js';
import type { Admission } from './calls/admission.js';
import { planRequestSchema } from './api/plans/schema.js';
import type { PlanOptimizer } from './api/plans/types.js';
import { jobsRouter, type PlanJobs } from './api/plans/jobs/index.js';
import type { Idempotency } from './calls/idempotency.js';
import type { Metrics } from './metrics.js';
import { hasMetricsToken, requestMetrics } from './http/metrics.js';
import { DomainError } from './errors.js';
import { requireKey } from './http/auth.js';
import { CheckoutLimiter, FailedAuthLimiter, KeyConcurrency } from './http/limits.js';
import { cors, securityHeaders } from './http/security.js';
import { closeAfterUnreadBody, RequestBodies, type JsonRoute } from './http/body.js';
import { clientAddress } from './http/client-address.js';
import type { Readiness } from './readiness.js';
import type { ConsoleTestKeys } from './console/test-keys.js';
import { consoleRouter, docsRouter, type ConsolePayments } from './console/router.js';

export interface AppDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'publicBaseUrl' | 'optimize' | 'limits' | 'departureWindowDays'> &
    Partial<Pick<Config, 'metrics' | 'jobs'>>;
  logger: Logger;
  store: Store;
  billing: Billing;
  optimizer: RouteOptimizer;
  planner: PlanOptimizer;
  /** POST /api/v1/vroom's work. */
  vroom: VroomOptimizer;
  /** Asynchronous plans; absent: plans are answered synchronously only. */
  jobs?: PlanJobs;
  /** Admission of paid calls (src/calls/admission.ts); absent: every call is let in. */
  admission?: Admission;
  idempotency: Idempotency;
  checkout: CheckoutProvider | null;
  metrics: Metrics;
  consoleTestKeys: ConsoleTestKeys;
  /** Payments on or off, and checkout session states, for the console. */
  checkoutSessions?: ConsolePayments;
  /** True once a shutdown began: /readyz answers 503 while the listener drains. */
  shuttingDown?(): boolean;
  readiness(): Promise<Readiness>;
  /** A call just failed because the store could not take it: readiness looks again at once. */
  storageUnavailable?(): void;
  /** Request bodies: limits, deadline and the byte budget shared with the payments routers. */
  bodies: RequestBodies;
  clock?: () => Date;
  /** Routers of other modules (payments webhook, packs). */
  routers?: Router<AppState>[];
  openApiPaths?: Record<string, object>;
}

/** The paid endpoints' bodies: each within its largest valid request (http/body-size.ts), and what a 413 says to shrink. */
const OPTIMIZE_BODY: JsonRoute = {
  where: 'POST /api/v1/optimize',
  schema: optimizeRequestSchema,
  shrink:
    'send fewer stops (at most 200), shorter ids and addresses, or a smaller matrix (one row per place of the call)',
};
const PLANS_BODY: JsonRoute = {
  where: 'POST /api/v1/plans',
  schema: planRequestSchema,
  shrink:
    'send fewer stops or vehicles, shorter ids and addresses, shorter allowedVehicles lists (leave it out for a stop any vehicle may serve), or a smaller matrix (one row per place of the call)',
};

const VROOM_BODY: JsonRoute = {
  where: 'POST /api/v1/vroom',
  schema: vroomBodySizeSchema,
  shrink:
    'send fewer jobs, shipments or vehicles, shorter descriptions, or smaller matrices (one row per place of the call)',
};

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  const limits = deps.config.limits;
  const auth = requireKey(
    deps.billing,
    new FailedAuthLimiter(limits.authFailuresPerMinute, 60_000, { maxAddresses: limits.trackedAddresses }),
  );
  const liveConcurrency = new KeyConcurrency(limits.liveConcurrentPerKey);
  const checkoutLimiter = new CheckoutLimiter({
    perAddressPerMinute: limits.checkoutPerAddressPerMinute,
    perMinute: limits.checkoutPerMinute,
    maxAddresses: limits.trackedAddresses,
  });
  const bodies = deps.bodies;
  app.silent = true;

  const health = new Router<AppState>();
  health.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/readyz', async (ctx) => {
    const { store, solver, problems } = await deps.readiness();
    const stopping = deps.shuttingDown?.() ?? false;
    const ready = store && solver && !stopping;
    ctx.status = ready ? 200 : 503;
    ctx.body = ready
      ? { status: 'ready', checks: { store, solver } }
      : {
          error: 'not_ready',
          message: stopping
            ? 'The service is shutting down.'
            : problems.length > 0
              ? problems.join(' ')
              : 'The service is starting or shutting down.',
          checks: { store, solver },
        };
  });
  // Not public: only behind METRICS_TOKEN here (else on the METRICS_PORT listener, or not at all).
  const metricsToken = deps.config.metrics?.token ?? null;
  if (metricsToken !== null) {
    health.get('/metrics', async (ctx) => {
      if (!hasMetricsToken(ctx.get('Authorization') || undefined, metricsToken)) {
        throw new DomainError('unauthorized', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".', {
          realm: 'metrics',
        });
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.metrics.registry.metrics();
      ctx.type = deps.metrics.registry.contentType;
    });
  }

  // what optimize and plans share: the key check, the live concurrency slots, the deadline and the departure window
  const paid = {
    auth,
    liveConcurrency,
    ...(deps.admission ? { admission: deps.admission } : {}),
    requestDeadlineMs: deps.config.optimize.requestDeadlineMs,
    departureWindowDays: deps.config.departureWindowDays,
    clock: deps.clock ?? (() => new Date()),
  };
  // a worker (SERVICE_ROLE=worker) runs queued plans and answers only its health and metrics
  const workerOnly = deps.config.jobs?.role === 'worker';
  const routers = [
    health,
    balanceRouter({ ...deps, auth }),
    optimizeRouter({ ...deps, ...paid, body: bodies.authenticatedJson(OPTIMIZE_BODY) }),
    plansRouter({ ...deps, ...paid, body: bodies.authenticatedJson(PLANS_BODY) }),
    vroomRouter({ ...deps, ...paid, body: bodies.authenticatedJson(VROOM_BODY) }),
    ...(deps.jobs ? [jobsRouter({ auth, store: deps.store, clock: paid.clock })] : []),
    checkoutRouter({ checkout: deps.checkout, body: bodies.anonymousJson(), limiter: checkoutLimiter }),
    ...(deps.routers ?? []),
    openApiRouter({ publicBaseUrl: deps.config.publicBaseUrl, extraPaths: deps.openApiPaths }),
    consoleRouter({
      testKeys: deps.consoleTestKeys,
      payments: deps.checkoutSessions,
      body: bodies.anonymousJson({ anyType: false }),
    }),
    docsRouter({ publicBaseUrl: deps.config.publicBaseUrl }),
  ].filter((router) => !workerOnly || router === health);

  app.use(requestId());
  app.use(clientAddress(limits.trustProxy));
  app.use(accessLog(deps.logger));
  app.use(requestMetrics(deps.metrics));
  app.use(closeAfterUnreadBody(bodies.limits.anonymousBytes));
  app.use(securityHeaders());
  app.use(cors(limits.corsOrigins));
  app.use(errorHandler(deps.logger, { storageUnavailable: () => deps.storageUnavailable?.() }));
  // no body is read here: each route that takes one reads it itself, after its key check (see http/body.ts)
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
