/**
 * Every environment variable the service reads, validated once at start-up.
 * Nothing else in the code base reads process.env.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { baseDir } from './assets.js';
import type { Config, LogLevel, TrustProxy } from './config-types.js';

export type * from './config-types.js';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/** Variables earlier versions read, and what replaced them. */
const OBSOLETE_VARIABLES: Record<string, string> = {
  INSTANCE_ID:
    'each process now takes a random instance id (an instance lease) when it starts; remove it (README: Restarts, crashes and instance leases)',
  RECOVERY_INTERVAL_MS: 'the recovery sweep now runs with every lease heartbeat; set LEASE_HEARTBEAT_MS instead',
};

const PROJECT_ROOT = baseDir();
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Collects problems instead of stopping at the first, so one message names every bad variable. */
class EnvReader {
  readonly problems: string[] = [];
  /** Every variable read, with its default as text ("unset" when there is none), for the generated configuration table. */
  readonly defaults = new Map<string, string>();
  constructor(private readonly env: Env) {}

  private noteDefault(name: string, fallback: string | number | readonly string[]): void {
    this.defaults.set(name, Array.isArray(fallback) ? fallback.join(',') : String(fallback));
  }

  raw(name: string): string | undefined {
    if (!this.defaults.has(name)) this.defaults.set(name, 'unset');
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    this.noteDefault(name, fallback);
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    this.noteDefault(name, fallback);
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    this.noteDefault(name, fallback);
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  number(name: string, fallback: number, min: number, max: number): number {
    this.noteDefault(name, fallback);
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+(\.\d+)?$/.test(value) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  /** A comma-separated list of known names, in order, without repeats. */
  list(name: string, allowed: readonly string[], fallback: string[]): string[] {
    this.noteDefault(name, fallback);
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const items = value
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter((v) => v !== '');
    const unknown = items.filter((v) => !allowed.includes(v));
    if (items.length === 0 || unknown.length > 0 || new Set(items).size !== items.length) {
      this.problems.push(
        `${name} must be a comma-separated list of distinct names from ${allowed.join(', ')} (got "${value}")`,
      );
      return fallback;
    }
    return items;
  }

  url(name: string, fallback: string): string {
    this.noteDefault(name, fallback);
    const value = this.raw(name) ?? fallback;
    try {
      const parsed = new URL(value);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
      return value.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be an http(s) URL (got "${value}")`);
      return fallback;
    }
  }
}

const TRUST_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IP address or CIDR range (`10.0.0.0/8`, `fd00::/8`), or a named range. */
function isProxyAddress(value: string): boolean {
  if (TRUST_PROXY_RANGES.includes(value)) return true;
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

function readTrustProxy(r: EnvReader): TrustProxy {
  const value = r.raw('TRUST_PROXY');
  if (value === undefined || value === 'false' || value === '0') return false;
  // `true` (the old boolean) means one proxy: the address it appended, never one the client wrote
  if (value === 'true') return 1;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops <= 10) return hops;
  }
  const items = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (items.length > 0 && items.every(isProxyAddress)) return items;
  r.problems.push(
    `TRUST_PROXY must be false, a number of proxies from 1 to 10, or a comma-separated list of proxy addresses or CIDR ranges ` +
      `(or loopback, linklocal, uniquelocal) (got "${value}")`,
  );
  return false;
}

export function loadConfig(env: Env = process.env, r: EnvReader = new EnvReader(env)): Config {
  const port = r.int('PORT', 3000, 0, 65535);
  const host = r.string('HOST', '0.0.0.0');
  const config = {
    port,
    host,
    databasePath: resolve(PROJECT_ROOT, r.string('DATABASE_PATH', 'var/service.db')),
    databaseUrl: (() => {
      const url = r.raw('DATABASE_URL');
      if (url === undefined) return null;
      if (!/^postgres(ql)?:\/\//.test(url)) {
        r.problems.push('DATABASE_URL must start with postgres:// or postgresql://');
        return null;
      }
      return url;
    })(),
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 1_000),
    databaseBusyTimeoutMs: r.int('DATABASE_BUSY_TIMEOUT_MS', 5_000, 0, 600_000),
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes:
      r.raw('BODY_LIMIT_BYTES') === undefined ? null : r.int('BODY_LIMIT_BYTES', 0, 1024, 256 * 1024 * 1024),
    publicBaseUrl: r.url('PUBLIC_BASE_URL', `http://localhost:${port}`),
    publicBaseUrlConfigured: r.raw('PUBLIC_BASE_URL') !== undefined,
    departureWindowDays: r.int('DEPARTURE_WINDOW_DAYS', 366, 1, 3_660),
    sandbox: {
      maxStopsPerCall: r.int('SANDBOX_MAX_STOPS_PER_CALL', 10, 2, 200),
      callsPerMinute: r.int('SANDBOX_CALLS_PER_MINUTE', 20, 1, 100000),
      stopsPerDay: r.int('SANDBOX_STOPS_PER_DAY', 200, 2, 10000000),
    },
  } as Config;
  config.payments = {
    stripeSecretKey: r.raw('STRIPE_SECRET_KEY') ?? null,
    stripeApiBase: r.raw('STRIPE_API_BASE') === undefined ? null : r.url('STRIPE_API_BASE', 'http://localhost'),
    stripeWebhookSecret: r.raw('STRIPE_WEBHOOK_SECRET') ?? null,
    currency: r.oneOf('PAYMENTS_CURRENCY', ['eur', 'usd', 'gbp', 'chf'], 'eur'),
    packPrices: {
      pack_2k: r.int('PACK_2K_PRICE_CENTS', 2_900, 50, 100_000_000),
      pack_10k: r.int('PACK_10K_PRICE_CENTS', 9_900, 50, 100_000_000),
      pack_50k: r.int('PACK_50K_PRICE_CENTS', 39_900, 50, 100_000_000),
      pack_250k: r.int('PACK_250K_PRICE_CENTS', 149_900, 50, 100_000_000),
    },
  };
  const smtpUrl = r.raw('SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\//.test(smtpUrl))
    r.problems.push('SMTP_URL must start with smtp:// or smtps://');
  config.mail = {
    smtpUrl: smtpUrl ?? null,
    mailFrom: r.string('MAIL_FROM', 'Route Optimization Service <no-reply@localhost>'),
    outboxDir: resolve(PROJECT_ROOT, r.string('OUTBOX_DIR', 'var/outbox')),
  };
  const routingNames = ['haversine', 'osrm'];
  config.routing = {
    live: r.list('ROUTING', routingNames, ['haversine']),
    sandbox: r.oneOf('SANDBOX_ROUTING', routingNames, 'haversine'),
    osrmUrl: r.raw('OSRM_URL') === undefined ? null : r.url('OSRM_URL', 'http://localhost:5000'),
    osrmProfile: r.string('OSRM_PROFILE', 'driving'),
    osrmTimeoutMs: r.int('OSRM_TIMEOUT_MS', 10_000, 100, 600_000),
    osrmMaxTableSize: r.int('OSRM_MAX_TABLE_SIZE', 100, 2, 100_000),
    circuityFactor: r.number('ROUTING_CIRCUITY_FACTOR', 1.3, 1, 5),
  };
  if ((config.routing.live.includes('osrm') || config.routing.sandbox === 'osrm') && !config.routing.osrmUrl) {
    r.problems.push('OSRM_URL is required when ROUTING or SANDBOX_ROUTING names osrm');
  }
  config.geocoding = {
    chain: r.list('GEOCODER', ['geoplateforme', 'embedded', 'ban', 'nominatim'], ['geoplateforme', 'embedded']),
    geoplateformeUrl: r.url('GEOPLATEFORME_URL', 'https://data.geopf.fr/geocodage'),
    geoplateformeMinScore: r.number('GEOPLATEFORME_MIN_SCORE', 0.5, 0, 1),
    geoplateformeRateLimit: r.int('GEOPLATEFORME_RATE_LIMIT', 50, 1, 1_000),
    banUrl: r.raw('BAN_URL') === undefined ? null : r.url('BAN_URL', 'http://localhost:7878'),
    banMinScore: r.number('BAN_MIN_SCORE', 0.5, 0, 1),
    banRateLimit: r.int('BAN_RATE_LIMIT', 0, 0, 100_000),
    nominatimUrl: r.raw('NOMINATIM_URL') === undefined ? null : r.url('NOMINATIM_URL', 'http://localhost:8080'),
    nominatimMinImportance: r.number('NOMINATIM_MIN_IMPORTANCE', 0, 0, 1),
    timeoutMs: r.int('GEOCODER_TIMEOUT_MS', 5_000, 100, 600_000),
    concurrencyPerCall: r.int('GEOCODER_CONCURRENCY', 4, 1, 64),
    minPrecision: r.oneOf(
      'GEOCODER_MIN_PRECISION',
      ['housenumber', 'street', 'locality', 'municipality'] as const,
      'municipality',
    ),
    breakerFailures: r.int('GEOCODER_BREAKER_FAILURES', 3, 1, 1_000),
    breakerCooldownMs: r.int('GEOCODER_BREAKER_COOLDOWN_MS', 30_000, 100, 3_600_000),
    batchThreshold: r.int('GEOCODER_BATCH_THRESHOLD', 20, 0, 100_000),
  };
  if (config.geocoding.chain.includes('ban') && !config.geocoding.banUrl) {
    r.problems.push(
      'BAN_URL is required when GEOCODER names ban: the root of your self-hosted addok instance (the old public BAN host was shut down; use geoplateforme for the public service)',
    );
  }
  if (config.geocoding.chain.includes('nominatim') && !config.geocoding.nominatimUrl) {
    r.problems.push('NOMINATIM_URL is required when GEOCODER names nominatim');
  }
  config.solver = {
    wasmPath: r.raw('SOLVER_WASM') === undefined ? null : resolve(PROJECT_ROOT, r.raw('SOLVER_WASM')!),
    timeLimitMs: r.int('SOLVER_TIME_LIMIT_MS', 250, 10, 600_000),
    poolSize: r.int('SOLVER_POOL_SIZE', Math.max(1, availableParallelism()), 1, 256),
    maxQueue: r.int('SOLVER_MAX_QUEUE', 64, 0, 100_000),
    smallWorkers: 0,
    smallSolveMs: r.int('SOLVER_SMALL_SOLVE_MS', 1_000, 0, 600_000),
    keySolverMsInFlight: r.int('SOLVER_KEY_SECONDS_IN_FLIGHT', 60, 1, 86_400) * 1000,
    memoryBytes: r.int('SOLVER_MEMORY_MB', 256, 64, 1_048_576) * 1024 * 1024,
  };
  const poolSize = config.solver.poolSize;
  config.solver.smallWorkers = r.int('SOLVER_SMALL_WORKERS', poolSize > 1 ? 1 : 0, 0, 255);
  if (config.solver.smallWorkers >= poolSize && config.solver.smallWorkers > 0)
    r.problems.push(
      `SOLVER_SMALL_WORKERS (${config.solver.smallWorkers}) must be less than SOLVER_POOL_SIZE (${poolSize}): big plans need a worker too`,
    );
  config.plans = {
    solverTimeLimitMs: r.int('PLANS_SOLVER_TIME_LIMIT_MS', 10_000, 10, 600_000),
    solverMsPerStop: r.int('PLANS_SOLVER_MS_PER_STOP', 10, 1, 60_000),
  };
  config.jobs = {
    role: r.oneOf('SERVICE_ROLE', ['all', 'api', 'worker'], 'all'),
    concurrency: r.int('JOB_CONCURRENCY', 1, 0, 256),
    pollMs: r.int('JOB_POLL_MS', 1_000, 50, 60_000),
    progressMs: r.int('JOB_PROGRESS_MS', 1_000, 100, 60_000),
    retentionDays: r.int('JOB_RETENTION_DAYS', 7, 1, 3_650),
    maxUnfinishedPerKey: r.int('JOB_MAX_UNFINISHED_PER_KEY', 20, 1, 100_000),
  };
  config.optimize = {
    requestDeadlineMs: r.int('REQUEST_DEADLINE_MS', 30_000, 1_000, 600_000),
    idempotencyTtlHours: r.int('IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 30),
  };
  const leaseExpiryMs = r.int('LEASE_EXPIRY_MS', 10_000, 1_000, 600_000);
  config.lease = {
    expiryMs: leaseExpiryMs,
    heartbeatMs: r.int('LEASE_HEARTBEAT_MS', Math.floor(leaseExpiryMs / 3), 100, 300_000),
  };
  if (config.lease.heartbeatMs * 2 > config.lease.expiryMs) {
    r.problems.push(
      `LEASE_HEARTBEAT_MS must be at most half of LEASE_EXPIRY_MS (${config.lease.expiryMs}), so one late heartbeat does not expire the lease (got "${config.lease.heartbeatMs}")`,
    );
  }
  config.warnings = Object.entries(OBSOLETE_VARIABLES)
    .filter(([name]) => r.raw(name) !== undefined)
    .map(([name, why]) => `${name} is set but no longer used: ${why}`);
  config.limits = {
    corsOrigins: (r.raw('CORS_ORIGINS') ?? '*')
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== ''),
    trustProxy: readTrustProxy(r),
    authFailuresPerMinute: r.int('AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000),
    trackedAddresses: r.int('RATE_LIMIT_TRACKED_ADDRESSES', 100_000, 100, 10_000_000),
    checkoutPerAddressPerMinute: r.int('CHECKOUT_PER_ADDRESS_PER_MINUTE', 10, 1, 1_000_000),
    checkoutPerMinute: r.int('CHECKOUT_PER_MINUTE', 120, 1, 1_000_000),
    anonymousBodyLimitBytes: r.int(
      'ANONYMOUS_BODY_LIMIT_BYTES',
      Math.min(16 * 1024, config.bodyLimitBytes ?? Number.POSITIVE_INFINITY),
      1024,
      64 * 1024 * 1024,
    ),
    bodyBytesInFlight: r.int('BODY_BYTES_IN_FLIGHT', 64 * 1024 * 1024, 64 * 1024, 4 * 1024 * 1024 * 1024),
    bodyTimeoutMs: r.int('BODY_TIMEOUT_MS', 15_000, 100, 600_000),
    headersTimeoutMs: r.int('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    liveConcurrentPerKey: r.int('LIVE_MAX_CONCURRENT_PER_KEY', 64, 1, 100_000),
    maxJsonDepth: r.int('MAX_JSON_DEPTH', 32, 4, 1_000),
    consoleKeysPerIpPerDay: r.int('CONSOLE_TEST_KEYS_PER_IP_PER_DAY', 10, 1, 1_000_000),
    consoleKeysPerEmailPerDay: r.int('CONSOLE_TEST_KEYS_PER_EMAIL_PER_DAY', 3, 1, 1_000_000),
  };
  config.metrics = {
    port: r.raw('METRICS_PORT') === undefined ? null : r.int('METRICS_PORT', 9464, 1, 65535),
    host: r.string('METRICS_HOST', '127.0.0.1'),
    token: r.raw('METRICS_TOKEN') ?? null,
  };
  if (config.metrics.port !== null && config.metrics.port === port)
    r.problems.push('METRICS_PORT must differ from PORT');
  if (config.metrics.token !== null && config.metrics.token.length < 16)
    r.problems.push('METRICS_TOKEN must be at least 16 characters (e.g. openssl rand -hex 16)');
  config.shutdownDrainMs = r.int('SHUTDOWN_DRAIN_MS', 2_000, 0, 600_000);
  if (config.bodyLimitBytes !== null && config.limits.anonymousBodyLimitBytes > config.bodyLimitBytes) {
    r.problems.push(
      `ANONYMOUS_BODY_LIMIT_BYTES (${config.limits.anonymousBodyLimitBytes}) must not exceed BODY_LIMIT_BYTES (${config.bodyLimitBytes})`,
    );
  }
  if (config.bodyLimitBytes !== null && config.limits.bodyBytesInFlight < config.bodyLimitBytes) {
    r.problems.push(
      `BODY_BYTES_IN_FLIGHT (${config.limits.bodyBytesInFlight}) must be at least BODY_LIMIT_BYTES (${config.bodyLimitBytes})`,
    );
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** Every variable the service reads (obsolete ones aside) with its default as text, in the order they are read. */
export function configVariables(): Array<{ name: string; default: string }> {
  const reader = new EnvReader({});
  loadConfig({}, reader);
  return [...reader.defaults]
    .filter(([name]) => !(name in OBSOLETE_VARIABLES))
    .map(([name, fallback]) => ({ name, default: fallback }));
}
