/**
 * createApp(deps): the Koa application without listen. main.ts listens;
 * tests call it through app.callback() or on port 0.
 */
import Koa from 'koa';
import { Router } from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Billing } from './billing/billing.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Store } from './store/types.js';
import { accessLog } from './http/access-log.js';
import { bodyParserError, errorHandler } from './http/errors.js';
import { requestId } from './http/request-id.js';
import type { AppState } from './http/state.js';
import { balanceRouter } from './api/balance/router.js';
import { checkoutRouter, type CheckoutProvider } from './api/checkout/router.js';
import { openApiRouter } from './api/openapi/router.js';
import { optimizeRouter } from './api/optimize/router.js';
import type { RouteOptimizer } from './api/optimize/types.js';
import type { Idempotency } from './api/optimize/idempotency.js';
import type { Metrics } from './metrics.js';
import { hasMetricsToken, requestMetrics } from './http/metrics.js';
import { ApiError } from './errors.js';
import { requireKey } from './http/auth.js';
import { FailedAuthLimiter, KeyConcurrency } from './http/limits.js';
import { cors, jsonDepthLimit, securityHeaders } from './http/security.js';
import type { ConsoleTestKeys } from './console/test-keys.js';
import { consoleRouter, docsRouter, type ConsolePayments } from './console/router.js';

export interface AppDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'publicBaseUrl' | 'optimize' | 'limits'> & Partial<Pick<Config, 'metrics'>>;
  logger: Logger;
  store: Store;
  billing: Billing;
  optimizer: RouteOptimizer;
  idempotency: Idempotency;
  checkout: CheckoutProvider | null;
  metrics: Metrics;
  consoleTestKeys: ConsoleTestKeys;
  /** Payments on or off, and checkout session states, for the console. */
  checkoutSessions?: ConsolePayments;
  readiness(): Promise<{ store: boolean; solver: boolean }>;
  /** True once a shutdown began: /readyz answers 503 while the listener drains. */
  shuttingDown?(): boolean;
  /** Routers of other modules (payments webhook, packs). */
  routers?: Router<AppState>[];
  openApiPaths?: Record<string, object>;
}

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = deps.config.limits.trustProxy;
  const auth = requireKey(deps.billing, new FailedAuthLimiter(deps.config.limits.authFailuresPerMinute, 60_000));
  const liveConcurrency = new KeyConcurrency(deps.config.limits.liveConcurrentPerKey);
  app.silent = true;

  const health = new Router<AppState>();
  health.get('/healthz', (ctx) => { ctx.body = { status: 'ok' }; });
  health.get('/readyz', async (ctx) => {
    const checks = await deps.readiness();
    const stopping = deps.shuttingDown?.() ?? false;
    const ready = checks.store && checks.solver && !stopping;
    ctx.status = ready ? 200 : 503;
    ctx.body = ready ? { status: 'ready', checks }
      : { error: 'not_ready', message: stopping ? 'The service is shutting down.' : 'The service is starting or shutting down.', checks };
  });
  // Not public: only behind METRICS_TOKEN here (else on the METRICS_PORT listener, or not at all).
  const metricsToken = deps.config.metrics?.token ?? null;
  if (metricsToken !== null) {
    health.get('/metrics', async (ctx) => {
      if (!hasMetricsToken(ctx.get('Authorization') || undefined, metricsToken)) {
        throw new ApiError(401, 'unauthorized', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".', {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.metrics.registry.metrics();
      ctx.type = deps.metrics.registry.contentType;
    });
  }

  const routers = [
    health,
    balanceRouter({ ...deps, auth }),
    optimizeRouter({ ...deps, auth, liveConcurrency, requestDeadlineMs: deps.config.optimize.requestDeadlineMs }),
    checkoutRouter(deps),
    ...(deps.routers ?? []),
    openApiRouter({ publicBaseUrl: deps.config.publicBaseUrl, extraPaths: deps.openApiPaths }),
    consoleRouter({ testKeys: deps.consoleTestKeys, payments: deps.checkoutSessions }),
    docsRouter({ publicBaseUrl: deps.config.publicBaseUrl }),
  ];

  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(requestMetrics(deps.metrics));
  app.use(securityHeaders());
  app.use(cors(deps.config.limits.corsOrigins));
  app.use(errorHandler(deps.logger));
  app.use(bodyParser({
    enableTypes: ['json'],
    jsonLimit: deps.config.bodyLimitBytes,
    jsonStrict: true,
    // API clients sometimes forget the Content-Type: every API body is JSON anyway.
    detectJSON: (ctx) => ctx.path.startsWith('/api/'),
    onError: bodyParserError,
  }));
  app.use(jsonDepthLimit(deps.config.limits.maxJsonDepth));
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
