/** Builds every long-lived service from the config; main.ts and the test server share it. */
import type { Config } from './config.js';
import { stdoutLogStats, type Logger } from './logger.js';
import { Billing, type Clock } from './billing/billing.js';
import { openStore } from './store/open.js';
import type { Store } from './store/types.js';
import type { CheckoutProvider } from './api/checkout/router.js';
import { Idempotency } from './api/optimize/idempotency.js';
import { OptimizePipeline, type RouteSolver } from './api/optimize/pipeline.js';
import type { RouteOptimizer } from './api/optimize/types.js';
import {
  CachedGeocoder, EMBEDDED_GEOCODER_NOTICE, StoreGeocodeCache, createGeocoder, createRouting, usesEmbeddedGeocoder,
  type GeocoderSettings, type RoutingSettings,
} from './geo/index.js';
import { Metrics } from './metrics.js';
import { SolverPool } from './solver/index.js';
import type { Router } from '@koa/router';
import type { AppState } from './http/state.js';
import { buildPaymentServices, type Outbox, type PaymentDeps } from './payments/index.js';
import { ConsoleTestKeys } from './console/test-keys.js';
import { bodyLimitsOf, RequestBodies } from './http/body.js';
import { StoreWritability, type Readiness } from './readiness.js';

/** Margin past the request deadline before an unsettled charge is given back by the recovery sweep. */
export const CHARGE_GRACE_MS = 5_000;

export interface Services {
  store: Store;
  billing: Billing;
  optimizer: RouteOptimizer;
  idempotency: Idempotency;
  checkout: CheckoutProvider | null;
  /** Stripe webhook and packs. */
  routers: Router<AppState>[];
  openApiPaths: Record<string, object>;
  outbox: Outbox;
  metrics: Metrics;
  /** Free test keys handed out by the web console (per-IP and per-e-mail limits). */
  consoleTestKeys: ConsoleTestKeys;
  /** Solves waiting for a worker (for readiness and metrics). */
  solverQueueDepth(): number;
  /** What /readyz reports: the store takes a write and the solver pool takes work (both false once shutdown began). */
  readiness(): Promise<Readiness>;
  /** Told when a call failed because the store could not take it (503 storage_unavailable). */
  storageUnavailable(): void;
  /** Request bodies: limits, deadline and one byte budget for every route that reads a body. */
  bodies: RequestBodies;
  clock: Clock;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  /** Replaces the worker pool (tests that need a solver that fails or stalls). */
  solver?: RouteSolver;
  /** Outbox timing, Stripe timeouts, mail sender. */
  payments?: Omit<PaymentDeps, 'store' | 'billing' | 'logger' | 'clock' | 'bodies'>;
}

export async function buildServices(config: Config, logger: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const clock = overrides.clock ?? (() => new Date());
  const metrics = new Metrics();
  metrics.observeDroppedLogLines(() => stdoutLogStats().droppedLines);
  const store = await openStore(config);
  const billing = new Billing(store, {
    limits: config.sandbox,
    clock,
    observer: { debited: (stops) => metrics.stopsDebited.inc(stops), refunded: (stops) => metrics.stopsRefunded.inc(stops) },
    chargeTtlMs: config.optimize.requestDeadlineMs + CHARGE_GRACE_MS,
    instanceId: config.optimize.instanceId,
  });
  const recover = async (restarted: boolean): Promise<void> => {
    try {
      const report = await billing.recoverExpiredCharges(restarted);
      for (const r of report.refunded) logger.warn({ debitId: r.debitId, keyId: r.keyId, stops: r.stops, requestId: r.requestId }, 'refunded a charge whose call could not complete');
      if (report.releasedSandbox > 0) logger.warn({ count: report.releasedSandbox }, 'released sandbox reservations whose calls could not complete');
      if (report.releasedIdempotencyClaims > 0) logger.warn({ count: report.releasedIdempotencyClaims }, 'released Idempotency-Key claims whose calls could not complete');
    } catch (err) {
      logger.error({ err }, 'charge recovery failed; will retry');
    }
  };
  await recover(true);
  const recoveryTimer = setInterval(() => { void recover(false); }, config.optimize.recoveryIntervalMs);
  recoveryTimer.unref();

  const bodies = new RequestBodies(bodyLimitsOf(config));
  const payments = buildPaymentServices(config, { store, billing, logger, clock, bodies, ...overrides.payments });

  const routingSettings: RoutingSettings = {
    haversine: { circuityFactor: config.routing.circuityFactor },
    ...(config.routing.osrmUrl ? {
      osrm: { baseUrl: config.routing.osrmUrl, profile: config.routing.osrmProfile, timeoutMs: config.routing.osrmTimeoutMs, maxTableSize: config.routing.osrmMaxTableSize },
    } : {}),
    logger,
  };
  const geocoderSettings: GeocoderSettings = {
    ban: { baseUrl: config.geocoding.banUrl, minScore: config.geocoding.banMinScore, timeoutMs: config.geocoding.timeoutMs },
    ...(config.geocoding.nominatimUrl ? {
      nominatim: { baseUrl: config.geocoding.nominatimUrl, minImportance: config.geocoding.nominatimMinImportance, timeoutMs: config.geocoding.timeoutMs },
    } : {}),
    logger,
  };
  if (usesEmbeddedGeocoder(config.geocoding.chain)) logger.info({ geocoder: config.geocoding.chain.join(',') }, EMBEDDED_GEOCODER_NOTICE);

  const pool = overrides.solver ? null : new SolverPool({
    ...(config.solver.wasmPath ? { wasmPath: config.solver.wasmPath } : {}),
    size: config.solver.poolSize,
    defaultTimeLimitMs: config.solver.timeLimitMs,
    maxQueue: config.solver.maxQueue,
  });
  const solver: RouteSolver = overrides.solver ?? pool!;
  const solverQueueDepth = (): number => pool?.queueDepth() ?? 0;
  metrics.observeSolverQueue(solverQueueDepth);

  const optimizer = new OptimizePipeline({
    geocoder: new CachedGeocoder(createGeocoder(config.geocoding.chain, geocoderSettings), new StoreGeocodeCache(store, clock)),
    geocodeConcurrency: config.geocoding.concurrencyPerCall,
    routing: createRouting(config.routing.live, routingSettings),
    sandboxRouting: createRouting([config.routing.sandbox], routingSettings),
    solver,
    solverTimeLimitMs: config.solver.timeLimitMs,
    clock,
    logger,
    metrics,
  });

  let closing = false;
  const writability = new StoreWritability(store, { clock });
  return {
    store,
    billing,
    optimizer,
    idempotency: new Idempotency(store, config.optimize.idempotencyTtlHours * 3_600_000, config.optimize.requestDeadlineMs + CHARGE_GRACE_MS, config.optimize.instanceId, clock),
    checkout: payments.checkout,
    routers: payments.routers,
    openApiPaths: payments.openApiPaths,
    outbox: payments.outbox,
    metrics,
    consoleTestKeys: new ConsoleTestKeys(store, {
      perIpPerDay: config.limits.consoleKeysPerIpPerDay,
      perEmailPerDay: config.limits.consoleKeysPerEmailPerDay,
    }, clock),
    solverQueueDepth,
    bodies,
    clock,
    storageUnavailable: () => writability.invalidate(),
    async readiness(): Promise<Readiness> {
      if (closing) return { store: false, solver: false, problems: ['The service is shutting down.'] };
      const storeProblem = await writability.check();
      const solverUp = pool ? pool.accepting() : true;
      const problems = [
        ...(storeProblem ? [storeProblem] : []),
        ...(solverUp ? [] : ['The solver pool is not taking work (its queue is full, or it is shutting down).']),
      ];
      return { store: storeProblem === null, solver: solverUp, problems };
    },
    async close() {
      closing = true;
      clearInterval(recoveryTimer);
      await payments.close();
      await pool?.close();
      await store.close();
    },
  };
}
