/**
 * The error catalogue: every code the service answers with, its status, and
 * when it is sent. The OpenAPI document's Error.error enum and docs/api.md are
 * checked against it; DomainError only accepts a code listed here and takes its status from here.
 */
export interface ErrorDefinition {
  status: number;
  /** True for the codes the API specification defines; false for this service's extensions. */
  spec: boolean;
  /** When it is sent, in one sentence (the OpenAPI document and docs/api.md use it). */
  when: string;
  /** Never reaches a client (an internal signal, e.g. the client already went away). */
  internal?: true;
}

export const ERROR_CATALOGUE = {
  invalid_request: {
    status: 400,
    spec: true,
    when: 'The request body or a header is invalid; `message` names the field and the expected form, `param` is the path of the field.',
  },
  sandbox_limit: { status: 400, spec: true, when: 'Test key: more stops in one call than the sandbox allows (10).' },
  sandbox_addresses_unsupported: {
    status: 400,
    spec: true,
    when: 'Test key: an address was sent instead of coordinates.',
  },
  invalid_signature: {
    status: 400,
    spec: false,
    when: 'Stripe webhook: missing or bad Stripe-Signature, or no webhook secret configured.',
  },
  unauthorized: { status: 401, spec: true, when: 'Missing, malformed, unknown or revoked API key.' },
  insufficient_stops: {
    status: 402,
    spec: true,
    when: 'Live key: the balance is lower than the stops sent; nothing was debited. `required` and `balance` tell by how much.',
  },
  not_found: {
    status: 404,
    spec: false,
    when: 'No endpoint at this path, or no asynchronous plan with this id for this key.',
  },
  method_not_allowed: {
    status: 405,
    spec: false,
    when: 'The path exists but not with this HTTP method; the `Allow` header lists the methods.',
  },
  idempotency_conflict: {
    status: 409,
    spec: false,
    when: 'This Idempotency-Key was already used with a different body.',
  },
  idempotency_in_progress: {
    status: 409,
    spec: false,
    when: 'A call with this Idempotency-Key is still running; retry after `Retry-After` seconds.',
  },
  request_timeout: {
    status: 408,
    spec: false,
    when: 'The body did not arrive whole within BODY_TIMEOUT_MS (15 s by default); the connection is closed.',
  },
  payload_too_large: {
    status: 413,
    spec: false,
    when: 'The body is larger than its endpoint allows: the largest valid request of its schema (optimize about 32 MB with a full own matrix, about 0.4 MB without; plans and vroom up to BODY_BYTES_IN_FLIGHT, 64 MiB: their schemas allow more) or BODY_LIMIT_BYTES when set; ANONYMOUS_BODY_LIMIT_BYTES (16 KiB) without a key. The message names the limit and what to shrink.',
  },
  geocoding_failed: {
    status: 422,
    spec: true,
    when: 'An address could not be geocoded; the message names which. Nothing was charged.',
  },
  sandbox_rate_limited: {
    status: 429,
    spec: true,
    when: 'Test key: the per-minute call cap or the per-day stop cap is reached; `limit`, `resetAt` and `Retry-After` say until when.',
  },
  rate_limited: {
    status: 429,
    spec: false,
    when: 'Too many failed authentications from one address, too many calls or solver seconds in flight for one key, or too many console test keys; retry after `Retry-After` seconds.',
  },
  internal_error: {
    status: 500,
    spec: false,
    when: 'An unexpected failure (a bug); the message carries the request id and no internals. Nothing was charged.',
  },
  not_implemented: { status: 501, spec: false, when: 'An HTTP method the server does not implement at all.' },
  optimization_failed: {
    status: 502,
    spec: true,
    when: 'Travel times or the route could not be computed in time; nothing was charged.',
  },
  sandbox_unavailable: {
    status: 503,
    spec: true,
    when: 'Test key: the sandbox routing engine is temporarily unavailable; nothing was counted.',
  },
  payment_unavailable: {
    status: 503,
    spec: true,
    when: 'Checkout: payments are not configured on this server, or the payment provider is unreachable (the spec leaves this code open).',
  },
  overloaded: {
    status: 503,
    spec: false,
    when: 'The optimizer could not finish this call before its request deadline, or its queue or memory is full; retry after `Retry-After` seconds. Nothing was charged.',
  },
  storage_unavailable: {
    status: 503,
    spec: false,
    when: 'The database is busy or full; retry after `Retry-After` seconds. Nothing was charged.',
  },
  not_ready: { status: 503, spec: false, when: '`GET /readyz` while the service is starting or shutting down.' },
  client_closed: {
    status: 499,
    spec: false,
    when: 'The client closed the connection before the answer; nothing was charged.',
    internal: true,
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type ErrorStatus<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C]['status'];

/** Every code a client can receive, in catalogue order. */
export const CLIENT_ERROR_CODES: ErrorCode[] = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter(
  (code) => !(ERROR_CATALOGUE[code] as ErrorDefinition).internal,
);

export type ErrorExtra = Record<string, string | number | boolean | null>;

/** A limit a refusal was measured against: the quota of the window and the seconds until it frees up. */
export interface RateLimitState {
  /** The quota of the window (calls, stops or failures). */
  limit: number;
  /** What is left of it now. */
  remaining: number;
  /** Seconds until the window frees up. */
  resetSeconds: number;
}

export interface DomainErrorOptions {
  /** Fields added to the Error body beside `error` and `message` (`param`, `required`, `balance`, `limit`, `resetAt`). */
  extra?: ErrorExtra;
  /** The limit this refusal hit (429s): the HTTP layer answers it as RateLimit-* and Retry-After. */
  rateLimit?: Omit<RateLimitState, 'remaining'>;
  /** Seconds after which a retry may succeed (a busy queue, a call in progress), without a limit to report. */
  retryAfterSeconds?: number;
  /** The request was refused before its body was read whole: the connection cannot be reused. */
  closeConnection?: boolean;
  /** For `unauthorized`: which credentials are asked for (`api` unless told). */
  realm?: string;
}

/**
 * The one error type of the service: a catalogue code (the type checker refuses any other), a message that names
 * the fix, extra Error-body fields, and what a retry needs to know. It knows no HTTP: its status is the
 * catalogue's, and the error middleware (src/http/errors.ts) turns it into the Error body
 * `{error, message, ...extra, requestId}` and the headers (Retry-After, RateLimit-*, WWW-Authenticate).
 */
export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly extra: ErrorExtra;
  readonly rateLimit?: Omit<RateLimitState, 'remaining'>;
  readonly retryAfterSeconds?: number;
  readonly closeConnection: boolean;
  readonly realm?: string;

  constructor(code: C, message: string, options: DomainErrorOptions = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.extra = options.extra ?? {};
    this.rateLimit = options.rateLimit;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.closeConnection = options.closeConnection ?? false;
    this.realm = options.realm;
  }

  /** The catalogue's status for this code. */
  get status(): ErrorStatus<C> {
    return ERROR_CATALOGUE[this.code].status;
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

/** invalid_request; `param` is the path of the offending field (`stops[3].deadline`), when there is one. */
export const invalidRequest = (message: string, param?: string): DomainError<'invalid_request'> =>
  new DomainError('invalid_request', message, param === undefined ? {} : { extra: { param } });

export const unauthorized = (
  message = 'A valid API key is required: send "Authorization: Bearer <API_KEY>".',
): DomainError<'unauthorized'> => new DomainError('unauthorized', message);

/** A refusal past a limit (code: rate_limited or sandbox_rate_limited); the HTTP layer adds RateLimit-* and Retry-After. */
export function tooManyRequests(
  code: 'rate_limited' | 'sandbox_rate_limited',
  message: string,
  limit: Omit<RateLimitState, 'remaining'>,
  extra: ErrorExtra = {},
): DomainError<typeof code> {
  return new DomainError(code, message, { extra, rateLimit: limit });
}
