/**
 * What each environment variable means, for the generated configuration table (docs/configuration.md).
 * The variables themselves and their defaults come from src/config.ts (`configVariables()`); a test fails
 * when a variable is read there but not described here, or described here but no longer read.
 */
import { configVariables } from './config.js';

interface VariableHelp {
  help: string;
  /** The default as people should read it, where the one computed on this machine would mislead. */
  default?: string;
  /** Shown in the README's short table too. */
  essential?: true;
}

export const CONFIG_HELP: Record<string, VariableHelp> = {
  PORT: { help: 'HTTP port', essential: true },
  HOST: { help: 'listen address', essential: true },
  DATABASE_PATH: {
    help: 'SQLite file (WAL mode), used when `DATABASE_URL` is unset, and the source of `db migrate-to-postgres`; `var/` is git-ignored',
    essential: true,
  },
  DATABASE_URL: {
    help: '`postgres://user:pass@host:5432/db` selects PostgreSQL, which several instances can share',
    essential: true,
  },
  DATABASE_POOL_SIZE: { help: 'PostgreSQL: most connections this instance opens (N instances need N × this)' },
  DATABASE_BUSY_TIMEOUT_MS: {
    help: "how long, in total, a statement waits for another connection's lock (a backup, the admin CLI, another instance); then 503 `storage_unavailable` with `Retry-After`. SQLite never sleeps on the event loop for it (its busy handler is off) and retries asynchronously; PostgreSQL: `lock_timeout`",
  },
  LOG_LEVEL: { help: '`fatal` … `trace`, or `silent`', essential: true },
  BODY_LIMIT_BYTES: {
    help: "largest JSON body of a request with a valid key, the same for every endpoint; larger → 413 `payload_too_large`. Unset: each endpoint's largest valid request (docs/api.md, Limits: optimize about 32 MB with its own matrix; plans and vroom `BODY_BYTES_IN_FLIGHT`), within `BODY_BYTES_IN_FLIGHT`",
    default: 'unset (per endpoint)',
  },
  PUBLIC_BASE_URL: {
    help: 'public address, used in links (checkout return pages, OpenAPI `servers`)',
    essential: true,
    default: 'http://localhost:$PORT',
  },
  SANDBOX_MAX_STOPS_PER_CALL: { help: 'test keys: stops per call (spec: 10)' },
  SANDBOX_CALLS_PER_MINUTE: { help: 'test keys: calls per rolling minute (spec: 20)' },
  SANDBOX_STOPS_PER_DAY: { help: 'test keys: stops per Europe/Paris day (spec: 200)' },
  STRIPE_SECRET_KEY: { help: 'enables payments; unset → checkout answers 503 `payment_unavailable`', essential: true },
  STRIPE_API_BASE: { help: 'points the Stripe client at another host (tests, proxies)' },
  STRIPE_WEBHOOK_SECRET: { help: 'signing secret of the Stripe webhook endpoint', essential: true },
  PAYMENTS_CURRENCY: { help: '`eur`, `usd`, `gbp` or `chf`' },
  PACK_2K_PRICE_CENTS: { help: 'price of the 2,000-stop pack, in cents' },
  PACK_10K_PRICE_CENTS: { help: 'price of the 10,000-stop pack, in cents' },
  PACK_50K_PRICE_CENTS: { help: 'price of the 50,000-stop pack, in cents' },
  PACK_250K_PRICE_CENTS: { help: 'price of the 250,000-stop pack, in cents' },
  SMTP_URL: {
    help: '`smtp://user:pass@host:587`; unset → e-mails are written to `OUTBOX_DIR` as `.eml` files',
    essential: true,
  },
  MAIL_FROM: { help: 'sender of e-mails', essential: true },
  OUTBOX_DIR: { help: 'where e-mails go without SMTP' },
  ROUTING: {
    help: 'travel-time engines for live keys, tried in order: `osrm,haversine` falls back to the built-in model when OSRM fails or times out',
    essential: true,
  },
  SANDBOX_ROUTING: { help: "the test keys' engine (one, no fallback: when it fails → 503 `sandbox_unavailable`)" },
  OSRM_URL: {
    help: 'OSRM server root, e.g. `http://localhost:5000`; required when an engine list names `osrm`',
    essential: true,
  },
  OSRM_PROFILE: { help: 'OSRM profile in the URL' },
  OSRM_TIMEOUT_MS: { help: 'timeout of each OSRM request' },
  OSRM_MAX_TABLE_SIZE: { help: "the server's `--max-table-size`; larger matrices are requested in chunks" },
  ROUTING_CIRCUITY_FACTOR: { help: 'built-in model: road distance ÷ great-circle distance' },
  GEOCODER: {
    help: 'geocoders tried in order (`geoplateforme`, `ban`, `nominatim`, `embedded`): street level from the Géoplateforme, commune level from the embedded gazetteer when it fails; `embedded` alone works offline',
    essential: true,
  },
  GEOPLATEFORME_URL: { help: 'the IGN Géoplateforme geocoding service root' },
  GEOPLATEFORME_MIN_SCORE: { help: 'lowest accepted Géoplateforme score (0–1)' },
  GEOPLATEFORME_RATE_LIMIT: {
    help: 'requests per second this process sends to the Géoplateforme (the service allows 50 per IP address and answers 429 beyond; lower it when several instances share one address)',
  },
  BAN_URL: {
    help: 'root of a **self-hosted** addok (BAN) instance, e.g. `http://addok:7878`; required when `GEOCODER` names `ban` (the old public host is gone)',
  },
  BAN_MIN_SCORE: { help: 'lowest accepted addok score (0–1)' },
  BAN_RATE_LIMIT: { help: 'requests per second to the addok instance; `0` = no limit' },
  NOMINATIM_URL: { help: 'Nominatim root; required when `GEOCODER` names `nominatim`' },
  NOMINATIM_MIN_IMPORTANCE: { help: 'lowest accepted Nominatim importance (0–1)' },
  GEOCODER_TIMEOUT_MS: { help: 'timeout of each geocoder request (single or batch)' },
  GEOCODER_CONCURRENCY: { help: 'most geocoder requests in flight for one optimize call' },
  GEOCODER_MIN_PRECISION: {
    help: '`housenumber`, `street`, `locality` or `municipality`: coarser matches fail the call with 422 `geocoding_failed`',
  },
  GEOCODER_BREAKER_FAILURES: { help: 'consecutive failures after which an engine is skipped (circuit breaker)' },
  GEOCODER_BREAKER_COOLDOWN_MS: { help: 'how long a skipped engine stays skipped before one trial request' },
  GEOCODER_BATCH_THRESHOLD: {
    help: 'a call with more addresses than this to look up at one engine sends them in one CSV batch request (Géoplateforme, addok with addok-csv)',
  },
  SOLVER_WASM: { help: 'another build of the solver module', default: 'data/solver/solver.wasm' },
  SOLVER_TIME_LIMIT_MS: {
    help: 'search budget per solve; the search stops earlier once converged (2·n kicks without a new best, at least 400; 50·n + 500 with deadlines), and ≤ 10 stops are solved exactly (see docs/solver.md)',
  },
  PLANS_SOLVER_TIME_LIMIT_MS: {
    help: "`POST /api/v1/plans`: the most one plan's solve may take (ms); a plan's budget is `PLANS_SOLVER_MS_PER_STOP` × stops, at least 200 ms, at most this. Keep `REQUEST_DEADLINE_MS` well above it (geocoding and the travel matrix come on top)",
  },
  PLANS_SOLVER_MS_PER_STOP: {
    help: '`POST /api/v1/plans`: solve budget per stop (ms); 1000 stops × 10 ms = the 10 s ceiling',
  },
  SERVICE_ROLE: {
    help: '`all` serves the API and runs asynchronous plans; `api` only serves (queued jobs wait for a worker); `worker` only runs queued jobs (with `/healthz`, `/readyz` and `/metrics`). `route-optimizer serve --role …` sets it',
  },
  JOB_CONCURRENCY: { help: 'asynchronous plans this process runs at once (0: none, as `SERVICE_ROLE=api`)' },
  JOB_POLL_MS: {
    help: 'how often an idle process looks for queued asynchronous plans (ms); one accepted here starts at once',
  },
  JOB_PROGRESS_MS: {
    help: "how often a running asynchronous plan's progress is written (what GET /api/v1/jobs/{id} and its events show) and a cancel is looked for (ms)",
  },
  JOB_RETENTION_DAYS: { help: 'finished asynchronous plans and their results are deleted after this many days' },
  JOB_MAX_UNFINISHED_PER_KEY: { help: 'queued or running asynchronous plans per key; more → 429 `rate_limited`' },
  SOLVER_POOL_SIZE: { help: 'solver worker threads', default: 'available cores' },
  SOLVER_MAX_QUEUE: { help: 'calls admitted and waiting for a solver worker; more → 503 `overloaded`' },
  SOLVER_SMALL_SOLVE_MS: {
    help: 'a solve with a budget of at most this (optimize, plans up to 100 stops, the sandbox) goes to the small lane, which never waits behind bigger ones (docs/operations.md, Solver lanes)',
  },
  SOLVER_KEY_SECONDS_IN_FLIGHT: {
    help: 'solver seconds (budgets) one key may have queued or running at once; a call past it → 429 `rate_limited` (a call alone is always let in)',
  },
  SOLVER_MEMORY_MB: {
    help: 'travel matrices the calls in progress may hold at once (about 40 bytes per matrix cell: 40 MB for a 1000-stop plan); a call past it → 503 `overloaded` (a call alone is always let in)',
  },
  SOLVER_SMALL_WORKERS: {
    help: 'solver workers kept for the small lane (big plans run on the others); must be less than `SOLVER_POOL_SIZE`',
    default: '1 (0 with one worker)',
  },
  REQUEST_DEADLINE_MS: {
    help: 'an optimize or plans call past this → 502 `optimization_failed`, refunded; the 30 s default leaves a 10 s plan (`PLANS_SOLVER_TIME_LIMIT_MS`) 20 s for geocoding and its travel matrix',
  },
  IDEMPOTENCY_TTL_HOURS: { help: 'how long an `Idempotency-Key` response is replayed' },
  LEASE_EXPIRY_MS: {
    help: 'an instance whose lease is not renewed for this long is taken for dead: any other instance gives back its unfinished charges (see [operations.md](operations.md#restarts-crashes-and-instance-leases))',
  },
  LEASE_HEARTBEAT_MS: {
    help: 'how often each instance renews its lease and runs the recovery sweep; at most half of `LEASE_EXPIRY_MS`',
    default: 'a third of LEASE_EXPIRY_MS',
  },
  CORS_ORIGINS: { help: 'comma-separated origins allowed to call `/api/` from a browser', default: '*' },
  TRUST_PROXY: {
    help: "how the client address is found behind reverse proxies: `false` = the connection's peer; a number N (1–10) = N proxies in front, each appending to `X-Forwarded-For`, read from the right; or a comma-separated list of the proxies' addresses or CIDR ranges (`10.0.0.0/8`, `loopback`, `uniquelocal`). `true` means `1`",
  },
  AUTH_FAILURES_PER_MINUTE: {
    help: 'failed authentications per client address per rolling minute; past it a failure answers 429 `rate_limited` instead of 401 (a valid key is always accepted)',
  },
  LIVE_MAX_CONCURRENT_PER_KEY: { help: 'optimize calls in flight per live key, then 429 `rate_limited`' },
  MAX_JSON_DEPTH: { help: 'deeper JSON bodies → 400 `invalid_request`' },
  CONSOLE_TEST_KEYS_PER_IP_PER_DAY: { help: 'test keys the console hands out per client address, rolling 24 h' },
  CONSOLE_TEST_KEYS_PER_EMAIL_PER_DAY: { help: 'test keys the console hands out per e-mail address, rolling 24 h' },
  METRICS_PORT: {
    help: 'serve `GET /metrics` on this separate port (and nothing else there); unset → no metrics listener',
  },
  METRICS_HOST: { help: 'address of the metrics listener' },
  METRICS_TOKEN: {
    help: 'bearer token `GET /metrics` requires (16+ characters); when set, `/metrics` is also served on `PORT`. Neither set → no metrics at all',
  },
  SHUTDOWN_DRAIN_MS: {
    help: 'after SIGTERM/SIGINT, how long the listener keeps serving (with `/readyz` 503) before it closes',
  },
  ANONYMOUS_BODY_LIMIT_BYTES: {
    help: 'largest body of a request without a key (checkout, console); larger → 413 at once from its `Content-Length`',
    default: '16384 (at most BODY_LIMIT_BYTES when set)',
  },
  BODY_BYTES_IN_FLIGHT: {
    help: 'most bytes held at once in request bodies being received, all requests together; beyond → 503 `overloaded`, `Retry-After: 1`',
  },
  BODY_TIMEOUT_MS: {
    help: 'a body must arrive whole within this once it is read; else 408 `request_timeout` and the connection is closed',
  },
  HEADERS_TIMEOUT_MS: {
    help: 'request headers must arrive within this; a request whose body is never read must arrive within this + `BODY_TIMEOUT_MS`',
  },
  DEPARTURE_WINDOW_DAYS: {
    help: '`departureTime` must lie within this many days before or after now; else 400 `invalid_request` naming the window',
  },
  RATE_LIMIT_TRACKED_ADDRESSES: {
    help: 'client addresses each in-memory limiter (failed logins, checkout) remembers; the least recently seen are forgotten first',
  },
  CHECKOUT_PER_ADDRESS_PER_MINUTE: {
    help: 'checkout sessions per client address per rolling minute, then 429 `rate_limited` with `Retry-After`',
  },
  CHECKOUT_PER_MINUTE: {
    help: "checkout sessions per rolling minute in total (this instance), then 429 `rate_limited`: keeps Stripe's API rate limit for real buyers",
  },
};

/** The Markdown table of every variable (or only the essential ones): name, default, meaning. */
export function renderConfigTable(only: 'all' | 'essential' = 'all'): string {
  const variables = configVariables().filter(({ name }) => only === 'all' || CONFIG_HELP[name]?.essential);
  const rows = variables.map(({ name, default: fallback }) => {
    const help = CONFIG_HELP[name];
    const shown = help?.default ?? fallback;
    return `| \`${name}\` | ${shown === 'unset' ? 'unset' : `\`${shown.replace(/\|/g, '\\|')}\``} | ${help?.help ?? ''} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n') + '\n';
}
