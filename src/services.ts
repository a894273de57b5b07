/** Builds every long-lived service from the config; main.ts and the test server share it. */
import { hostname } from 'node:os';
import type { Config } from './config.js';
import { stdoutLogStats, type Logger } from './logger.js';
import { Billing, type Clock } from './billing/billing.js';
import { InstanceLease, type LeaseEvents } from './billing/lease.js';
import { openStore } from './store/open.js';
import type { Store } from './store/types.js';
import type { CheckoutProvider } from './payments/types.js';
import { paymentOpenApiPaths } from './api/openapi/payments.js';
import { packsRouter } from './api/packs/router.js';
import { stripeWebhookRouter } from './api/webhooks/router.js';
import { Idempotency } from './calls/idempotency.js';
import { CallSteps } from './calls/steps.js';
import { OptimizePipeline, type RouteSolver } from './api/optimize/pipeline.js';
import type { RouteOptimizer } from './api/optimize/types.js';
import { PlansPipeline, type PlanSolver } from './api/plans/pipeline.js';
import { VroomPipeline, type VroomOptimizer } from './api/vroom/pipeline.js';
import type { PlanOptimizer } from './api/plans/types.js';
import { planJobs, type PlanJobs } from './api/plans/jobs/index.js';
import {
  EMBEDDED_GEOCODER_NOTICE,
  EmbeddedGeocoder,
  HaversineProvider,
  StoreGeocodeCache,
  createGeocoder,
  createRouting,
  isCommuneLevelFirst,
  type GeocoderSettings,
  type RoutingSettings,
} from './geo/index.js';
import { Metrics } from './metrics.js';
import { SolverPool } from './solver/index.js';
import { Admission } from './calls/admission.js';
import { planTimeLimitMs } from './api/plans/problem.js';
import { warmUpPlanSolver } from './api/plans/warm-up.js';
import type { Router } from '@koa/router';
import type { AppState } from './http/state.js';
import { buildPaymentServices, type Outbox, type PaymentDeps } from './payments/index.js';
import type { CheckoutSessions } from './payments/sessions.js';
import { ConsoleTestKeys } from './console/test-keys.js';
import { bodyLimitsOf, RequestBodies, WEBHOOK_BODY_LIMIT_BYTES } from './http/body.js';
import { StoreWritability, type Readiness } from './readiness.js';

/** Margin past the request deadline before an unsettled charge is given back by its own instance's recovery sweep. */
export const CHARGE_GRACE_MS = 5_000;

export interface Services {
  store: Store;
  billing: Billing;
  /** This process's instance lease: its random id, heartbeat and recovery sweep. */
  lease: InstanceLease;
  optimizer: RouteOptimizer;
  planner: PlanOptimizer;
  /** POST /api/v1/vroom's work: VROOM's format on the fleet solver. */
  vroom: VroomOptimizer;
  /** Asynchronous plans: the intake and this process's runner (started by start()). */
  jobs: PlanJobs;
  /** Refuses at once the calls the solver pool cannot serve in time (absent when both solvers are replaced). */
  admission?: Admission;
  idempotency: Idempotency;
  checkout: CheckoutProvider | null;
  /** Stripe webhook and packs. */
  routers: Router<AppState>[];
  openApiPaths: Record<string, object>;
  outbox: Outbox;
  /** Checkout session states for the console's success page. */
  checkoutSessions: CheckoutSessions;
  metrics: Metrics;
  /** Free test keys handed out by the web console (per-IP and per-e-mail limits). */
  consoleTestKeys: ConsoleTestKeys;
  /** Solves waiting for a worker (for readiness and metrics). */
  solverQueueDepth(): number;
  /**
   * One short solve of a synthetic plan that leaves the solver module's hot functions optimized for the first real
   * plans (src/api/plans/warm-up.ts); resolves with its ms. main.ts runs it once at start.
   */
  warmUpSolver(): Promise<number>;
  /** What /readyz reports: the store takes a write and the solver pool takes work (both false once shutdown began). */
  readiness(): Promise<Readiness>;
  /** Told when a call failed because the store could not take it (503 storage_unavailable). */
  storageUnavailable(): void;
  /** Request bodies: limits, deadline and one byte budget for every route that reads a body. */
  bodies: RequestBodies;
  clock: Clock;
  /** After draining: gives back anything still pending under this instance and ends its lease (once; close() does it too). */
  releaseLease(): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  /** Replaces the worker pool for optimize (tests that need a solver that fails or stalls). */
  solver?: RouteSolver;
  /** Replaces the worker pool for plans. The pool is started unless both are replaced. */
  fleetSolver?: PlanSolver;
  /** Outbox timing, Stripe timeouts, mail sender. */
  payments?: Omit<PaymentDeps, 'store' | 'billing' | 'logger' | 'clock' | 'bodies'>;
  /** The port this process listens on (PORT=0 picks one), recorded in its lease; default PORT. */
  port?: number;
}

export async function buildServices(
  config: Config,
  logger: Logger,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const clock = overrides.clock ?? (() => new Date());
  // the gazetteer is loaded before the service answers: a fallback to it then costs nothing, and
  // the main thread never stalls on parsing it in the middle of serving
  if (config.geocoding.chain.includes('embedded')) await new EmbeddedGeocoder().warmUp();
  const metrics = new Metrics();
  metrics.observeDroppedLogLines(() => stdoutLogStats().droppedLines);
  const store = await openStore(config);
  let billing: Billing | undefined;
  let lease: InstanceLease;
  const log = leaseLog(logger);
  try {
    lease = await InstanceLease.acquire(
      store,
      { host: hostname(), pid: process.pid, port: overrides.port ?? config.port },
      config.lease,
      {
        ...log,
        recovered: (report, by) => {
          billing?.countRefunds(report);
          log.recovered(report, by);
        },
      },
      clock,
    );
  } catch (err) {
    await store.close();
    throw err;
  }
  billing = new Billing(store, {
    limits: config.sandbox,
    clock,
    observer: {
      debited: (stops) => metrics.stopsDebited.inc(stops),
      refunded: (stops) => metrics.stopsRefunded.inc(stops),
    },
    chargeTtlMs: config.optimize.requestDeadlineMs + CHARGE_GRACE_MS,
    owner: lease,
  });
  // start-up recovery: instances whose lease has expired since (a crash, this host's previous run) are settled now
  await lease.beat().catch((err) => logger.error({ err }, 'charge recovery failed; the next heartbeat retries'));
  lease.start();

  const bodies = new RequestBodies(bodyLimitsOf(config));
  const payments = buildPaymentServices(config, { store, billing, logger, clock, ...overrides.payments });

  const routingSettings: RoutingSettings = {
    haversine: { circuityFactor: config.routing.circuityFactor },
    ...(config.routing.osrmUrl
      ? {
          osrm: {
            baseUrl: config.routing.osrmUrl,
            profile: config.routing.osrmProfile,
            timeoutMs: config.routing.osrmTimeoutMs,
            maxTableSize: config.routing.osrmMaxTableSize,
          },
        }
      : {}),
    logger,
  };
  const geo = config.geocoding;
  const breaker = { breakerFailures: geo.breakerFailures, breakerCooldownMs: geo.breakerCooldownMs };
  const geocoderSettings: GeocoderSettings = {
    geoplateforme: {
      baseUrl: geo.geoplateformeUrl,
      minScore: geo.geoplateformeMinScore,
      timeoutMs: geo.timeoutMs,
      ratePerSecond: geo.geoplateformeRateLimit,
      batchThreshold: geo.batchThreshold,
      ...breaker,
    },
    ...(geo.banUrl
      ? {
          ban: {
            baseUrl: geo.banUrl,
            minScore: geo.banMinScore,
            timeoutMs: geo.timeoutMs,
            ratePerSecond: geo.banRateLimit,
            batchThreshold: geo.batchThreshold,
            ...breaker,
          },
        }
      : {}),
    ...(geo.nominatimUrl
      ? {
          nominatim: {
            baseUrl: geo.nominatimUrl,
            minImportance: geo.nominatimMinImportance,
            timeoutMs: geo.timeoutMs,
            ...breaker,
          },
        }
      : {}),
    cache: new StoreGeocodeCache(store, clock),
    minPrecision: geo.minPrecision,
    logger,
  };
  if (isCommuneLevelFirst(geo.chain)) logger.info({ geocoder: geo.chain.join(',') }, EMBEDDED_GEOCODER_NOTICE);
  const geocoder = createGeocoder(geo.chain, geocoderSettings);

  const pool =
    overrides.solver && overrides.fleetSolver
      ? null
      : new SolverPool({
          ...(config.solver.wasmPath ? { wasmPath: config.solver.wasmPath } : {}),
          size: config.solver.poolSize,
          defaultTimeLimitMs: config.solver.timeLimitMs,
          maxQueue: config.solver.maxQueue,
          smallWorkers: config.solver.smallWorkers,
          smallSolveMs: config.solver.smallSolveMs,
        });
  // admission sizes each call by its endpoint's budget rule (the one its pipeline applies)
  const plansBudget = { ceilingMs: config.plans.solverTimeLimitMs, msPerStop: config.plans.solverMsPerStop };
  const admission = pool
    ? new Admission(
        pool.lanes,
        {
          keySolverMsInFlight: config.solver.keySolverMsInFlight,
          memoryBytes: config.solver.memoryBytes,
          maxQueue: config.solver.maxQueue,
          budgets: {
            '/api/v1/optimize': () => config.solver.timeLimitMs,
            '/api/v1/plans': (stops) => planTimeLimitMs(stops, plansBudget),
            '/api/v1/vroom': (stops) => planTimeLimitMs(stops, plansBudget),
          },
        },
        metrics,
      )
    : undefined;
  const solver: RouteSolver = overrides.solver ?? pool!;
  const fleetSolver: PlanSolver = overrides.fleetSolver ?? pool!;
  const solverQueueDepth = (): number => pool?.queueDepth() ?? 0;
  metrics.observeSolverQueue(solverQueueDepth);

  // locations → matrix → solve, the same steps for optimize and plans
  const steps = new CallSteps({
    geocoder,
    geocodeConcurrency: config.geocoding.concurrencyPerCall,
    routing: createRouting(config.routing.live, routingSettings),
    sandboxRouting: createRouting([config.routing.sandbox], routingSettings),
    builtIn: new HaversineProvider(routingSettings.haversine),
    logger,
    metrics,
  });
  const optimizer = new OptimizePipeline({ steps, solver, solverTimeLimitMs: config.solver.timeLimitMs, clock });
  const planner = new PlansPipeline({
    steps,
    solver: fleetSolver,
    clock,
    timeLimit: plansBudget,
  });

  const vroom = new VroomPipeline({
    steps,
    solver: fleetSolver,
    clock,
    budgetMs: (stops) => planTimeLimitMs(stops, plansBudget),
  });

  const jobs = planJobs({ config: config.jobs, store, planner, owner: lease, logger, clock });
  jobs.runner.start();

  let closing = false;
  const releaseLease = async (): Promise<void> => {
    await lease
      .release()
      .catch((err) =>
        logger.error(
          { err, instance: lease.instanceId },
          'could not release the instance lease; it expires on its own and another instance settles what it held',
        ),
      );
  };
  const writability = new StoreWritability(store, { clock });
  return {
    store,
    billing,
    lease,
    optimizer,
    planner,
    vroom,
    jobs,
    ...(admission ? { admission } : {}),
    idempotency: new Idempotency(
      store,
      config.optimize.idempotencyTtlHours * 3_600_000,
      config.optimize.requestDeadlineMs + CHARGE_GRACE_MS,
      lease,
      clock,
    ),
    checkout: payments.checkout,
    routers: [
      stripeWebhookRouter({ webhook: payments.webhook, body: bodies.raw(WEBHOOK_BODY_LIMIT_BYTES) }),
      packsRouter({ packs: payments.packs }),
    ],
    openApiPaths: paymentOpenApiPaths,
    outbox: payments.outbox,
    checkoutSessions: payments.sessions,
    metrics,
    consoleTestKeys: new ConsoleTestKeys(
      store,
      {
        perIpPerDay: config.limits.consoleKeysPerIpPerDay,
        perEmailPerDay: config.limits.consoleKeysPerEmailPerDay,
      },
      clock,
    ),
    solverQueueDepth,
    warmUpSolver: () => warmUpPlanSolver(fleetSolver),
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
    releaseLease,
    async close() {
      closing = true;
      await jobs.runner.close();
      await payments.close();
      await pool?.close();
      await releaseLease();
      await store.close();
    },
  };
}

/** What the lease reports, as log lines an operator can act on. */
function leaseLog(logger: Logger): Required<LeaseEvents> {
  return {
    recovered(report, by) {
      for (const l of report.settledLeases) {
        logger.warn(
          { instance: l.instanceId, host: l.host, pid: l.pid, port: l.port, lastHeartbeat: l.heartbeatAt, by },
          `instance ${l.instanceId} (${l.host} pid ${l.pid} port ${l.port}) stopped renewing its lease at ${l.heartbeatAt}; giving back its unfinished charges`,
        );
      }
      for (const r of report.refunded) {
        logger.warn(
          { debitId: r.debitId, keyId: r.keyId, stops: r.stops, requestId: r.requestId, instance: r.owner },
          'refunded a charge whose call could not complete',
        );
      }
      if (report.releasedSandbox > 0)
        logger.warn({ count: report.releasedSandbox }, 'released sandbox reservations whose calls could not complete');
      if (report.releasedIdempotencyClaims > 0)
        logger.warn(
          { count: report.releasedIdempotencyClaims },
          'released Idempotency-Key claims whose calls could not complete',
        );
    },
    lost(previousId, nextId, sinceRenewalMs) {
      logger.error(
        { instance: previousId, next: nextId, sinceRenewalMs },
        `this instance could not renew its lease for ${sinceRenewalMs} ms (a stall longer than LEASE_EXPIRY_MS) and another instance gave back its unfinished charges; ` +
          `calls that were in flight answer 502 and were not charged; continuing as instance ${nextId}`,
      );
    },
    failed(err) {
      logger.warn({ err }, 'instance lease heartbeat failed (the database did not answer); the next heartbeat retries');
    },
  };
}
