/** The shape of the validated configuration (src/config.ts reads and checks every variable into it). */
import type { GeocodePrecision } from './geo/geocoding/types.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  /** postgres://… selects the PostgreSQL store; null = SQLite at databasePath. */
  databaseUrl: string | null;
  /** PostgreSQL: most connections this instance opens. */
  databasePoolSize: number;
  /**
   * How long a statement may wait, in total, for another connection's lock before failing (503 storage_unavailable).
   * SQLite waits without blocking the event loop (short busy waits and asynchronous retries); PostgreSQL: lock_timeout.
   */
  databaseBusyTimeoutMs: number;
  logLevel: LogLevel;
  /** Largest accepted JSON body of an authenticated request, in bytes; null: each route's largest valid request. */
  bodyLimitBytes: number | null;
  publicBaseUrl: string;
  /** False when PUBLIC_BASE_URL is unset and publicBaseUrl is the http://localhost:PORT default (the admin CLI then writes no links). */
  publicBaseUrlConfigured: boolean;
  /** departureTime must lie within this many days before or after now. */
  departureWindowDays: number;
  sandbox: SandboxLimits;
  payments: PaymentsConfig;
  mail: MailConfig;
  routing: RoutingConfig;
  geocoding: GeocodingConfig;
  solver: SolverConfig;
  optimize: OptimizeConfig;
  plans: PlansConfig;
  jobs: JobsConfig;
  lease: LeaseConfig;
  limits: AbuseLimits;
  metrics: MetricsConfig;
  /** After SIGTERM/SIGINT: how long the listener keeps serving (with /readyz 503) before it closes. */
  shutdownDrainMs: number;
  /** Variables that are set but no longer used: logged as warnings at start-up. */
  warnings: string[];
}

export interface LeaseConfig {
  /** A process whose lease is not renewed for this long is taken for dead: any instance gives back its pending charges. */
  expiryMs: number;
  /** How often a process renews its lease and runs the recovery sweep. */
  heartbeatMs: number;
}

export interface MetricsConfig {
  /** GET /metrics on a separate listener at this port; null = none. */
  port: number | null;
  /** Address of that listener (loopback unless set). */
  host: string;
  /** Bearer token GET /metrics requires; when set, /metrics is also served on the API port. Null = none. */
  token: string | null;
}

export interface AbuseLimits {
  /** Origins allowed to call the API from a browser; ['*'] = any. */
  corsOrigins: string[];
  /**
   * How the client address is found: false = the socket's peer; a number = that many reverse proxies in front,
   * each appending to X-Forwarded-For (read from the right); a list = the addresses (or CIDR ranges) of trusted proxies.
   */
  trustProxy: TrustProxy;
  /** Failed authentications per client address per rolling minute; past it the failures answer 429 rate_limited. */
  authFailuresPerMinute: number;
  /** Client addresses each in-memory limiter tracks at most (least recently seen are forgotten first). */
  trackedAddresses: number;
  /** Checkout sessions per client address per rolling minute, and in total per minute (429 rate_limited). */
  checkoutPerAddressPerMinute: number;
  checkoutPerMinute: number;
  /** Largest body of a request without an API key (checkout, console), in bytes. */
  anonymousBodyLimitBytes: number;
  /** Most bytes held at once in request bodies being received, across all requests (503 overloaded beyond). */
  bodyBytesInFlight: number;
  /** A request body must arrive whole within this many ms of being read (408 request_timeout). */
  bodyTimeoutMs: number;
  /** Request headers must arrive within this many ms of the connection's request start. */
  headersTimeoutMs: number;
  /** Optimize calls in flight per live key before 429 rate_limited. */
  liveConcurrentPerKey: number;
  maxJsonDepth: number;
  /** Test keys the web console hands out per client address and per e-mail, rolling 24 hours. */
  consoleKeysPerIpPerDay: number;
  consoleKeysPerEmailPerDay: number;
}

export type TrustProxy = false | number | string[];

export interface RoutingConfig {
  /** Providers tried in order for live keys, e.g. ['osrm', 'haversine']. */
  live: string[];
  /** The sandbox engine of test keys: one provider, no fallback. */
  sandbox: string;
  osrmUrl: string | null;
  osrmProfile: string;
  osrmTimeoutMs: number;
  osrmMaxTableSize: number;
  circuityFactor: number;
}

export interface GeocodingConfig {
  /** Geocoders tried in order, e.g. ['geoplateforme', 'embedded']. */
  chain: string[];
  /** The IGN Géoplateforme geocoding service root. */
  geoplateformeUrl: string;
  geoplateformeMinScore: number;
  /** Requests per second this process sends to the Géoplateforme (the service allows 50 per IP). */
  geoplateformeRateLimit: number;
  /** A self-hosted addok (BAN) root; required when the chain names 'ban'. */
  banUrl: string | null;
  banMinScore: number;
  /** Requests per second to the addok instance; 0 = no limit. */
  banRateLimit: number;
  nominatimUrl: string | null;
  nominatimMinImportance: number;
  timeoutMs: number;
  /** Most geocoder requests in flight for one optimize call. */
  concurrencyPerCall: number;
  /** Matches coarser than this fail the call with 422 geocoding_failed. */
  minPrecision: GeocodePrecision;
  /** Consecutive failures after which an engine is skipped for breakerCooldownMs. */
  breakerFailures: number;
  breakerCooldownMs: number;
  /** A call looking up more addresses than this at one engine uses its CSV batch endpoint. */
  batchThreshold: number;
}

export interface SolverConfig {
  /** Another build of the WASM module; null = the committed one. */
  wasmPath: string | null;
  timeLimitMs: number;
  poolSize: number;
  /** Solves waiting for a worker beyond this → 503 overloaded. */
  maxQueue: number;
  /** Workers kept for small solves (budget ≤ smallSolveMs): optimize, small plans, the sandbox. */
  smallWorkers: number;
  /** A solve with a budget of at most this many ms goes to the small lane. */
  smallSolveMs: number;
  /** Solver seconds one key may have queued or running at once (as ms); more → 429 rate_limited. */
  keySolverMsInFlight: number;
  /** Bytes of travel matrices the calls in progress may hold at once; more → 503 overloaded. */
  memoryBytes: number;
}

export interface PlansConfig {
  /** The most a plan's solve may take (ms). */
  solverTimeLimitMs: number;
  /** A plan's solve budget per stop (ms), between 200 ms and solverTimeLimitMs. */
  solverMsPerStop: number;
}

/** Asynchronous plans (POST /api/v1/plans with Prefer: respond-async). */
export interface JobsConfig {
  /** What this process does: serve the API, run queued jobs, or both. */
  role: 'all' | 'api' | 'worker';
  /** Jobs this process runs at once. */
  concurrency: number;
  /** How often an idle runner looks for queued jobs (ms); a job accepted by this process wakes it at once. */
  pollMs: number;
  /** How often a running job's progress is written, and its cancel looked for (ms). */
  progressMs: number;
  /** Finished jobs (and their results) are deleted after this many days. */
  retentionDays: number;
  /** Queued or running jobs one key may have; more → 429 rate_limited. */
  maxUnfinishedPerKey: number;
}

export interface OptimizeConfig {
  /** A whole optimize or plans call past this is 502 optimization_failed (and refunded). */
  requestDeadlineMs: number;
  idempotencyTtlHours: number;
}

export interface PaymentsConfig {
  /** Null: payments are off and checkout answers 503 payment_unavailable. */
  stripeSecretKey: string | null;
  /** Points the Stripe client at another host (tests, proxies). */
  stripeApiBase: string | null;
  stripeWebhookSecret: string | null;
  /** ISO 4217 code, lower case. */
  currency: string;
  /** Price of each pack in the currency's smallest unit (cents). */
  packPrices: Record<'pack_2k' | 'pack_10k' | 'pack_50k' | 'pack_250k', number>;
}

export interface MailConfig {
  /** Null: messages are written as .eml files to outboxDir. */
  smtpUrl: string | null;
  mailFrom: string;
  outboxDir: string;
}

export interface SandboxLimits {
  maxStopsPerCall: number;
  callsPerMinute: number;
  stopsPerDay: number;
}
