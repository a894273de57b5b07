/**
 * Building blocks of the OpenAPI document shared by its contributors (the core
 * API in document.ts, payments in payments/openapi.ts): headers, parameters,
 * JSON responses and Error responses with their examples.
 */
import { CLIENT_ERROR_CODES, ERROR_CATALOGUE, type ErrorCode } from '../../errors.js';
import { ERROR_EXAMPLES, EXAMPLE_REQUEST_ID, errorExample } from './error-examples.js';

export const ref = (kind: 'schemas' | 'headers' | 'parameters' | 'responses', name: string): { $ref: string } => ({
  $ref: `#/components/${kind}/${name}`,
});

const RATE_LIMIT = 'IETF draft-ietf-httpapi-ratelimit-headers.';

/** Response headers; `required` where every response of that kind carries them. */
export const HEADERS = {
  'X-Request-Id': {
    description:
      "The request id: the caller's own `X-Request-Id` when it is 1–128 characters of `A-Za-z0-9._:-`, otherwise one made by the server. Every Error body repeats it as `requestId`; quote it when asking for support.",
    required: true,
    schema: { type: 'string', maxLength: 128, examples: ['3f1c7d0e-5b7a-4c1e-9d8f-2a6b1c0e4d21'] },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1, examples: [1] },
  },
  'RateLimit-Limit': {
    description: `Test keys: calls allowed in the rolling minute (on 429: the quota that was reached). ${RATE_LIMIT}`,
    schema: { type: 'integer', minimum: 0, examples: [20] },
  },
  'RateLimit-Remaining': {
    description: `Test keys: calls left in the rolling minute after this one (0 on 429). ${RATE_LIMIT}`,
    schema: { type: 'integer', minimum: 0, examples: [19] },
  },
  'RateLimit-Reset': {
    description: `Seconds until the window frees up (on 429: equal to Retry-After). ${RATE_LIMIT}`,
    schema: { type: 'integer', minimum: 0, examples: [60] },
  },
  'Idempotent-Replayed': {
    description:
      'Present, `true`, when this is the stored answer of an earlier call with the same `Idempotency-Key` and body: nothing was debited again.',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme to use: Bearer.',
    required: true,
    schema: { type: 'string', examples: ['Bearer realm="api"'] },
  },
  Allow: {
    description: 'On 405 method_not_allowed: the methods the path accepts.',
    schema: { type: 'string', examples: ['POST'] },
  },
} as const;

export type HeaderName = keyof typeof HEADERS;

/** `{name: $ref}` for the named headers; X-Request-Id always comes first. */
export function headers(...names: HeaderName[]): Record<string, object> {
  const all: HeaderName[] = ['X-Request-Id', ...names.filter((n) => n !== 'X-Request-Id')];
  return Object.fromEntries(all.map((name) => [name, ref('headers', name)]));
}

/** The RateLimit headers as a 429 sends them: always present. */
export const RATE_LIMIT_REFUSAL_HEADERS: Record<string, object> = Object.fromEntries(
  (['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const).map((name) => [
    name,
    { ...HEADERS[name], required: true },
  ]),
);

export const PARAMETERS = {
  'X-Request-Id': {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your own id for this request (1–128 of `A-Za-z0-9._:-`); echoed in the response and logged. Otherwise the server makes one.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    examples: { own: { summary: "A caller's id", value: 'route-2026-06-01-van-3' } },
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Extension. The same key and the same body within 24 hours return the stored 200 answer (header `Idempotent-Replayed: true`) without a second debit. ' +
      'The same key with another body → 409 idempotency_conflict; while the first call runs → 409 idempotency_in_progress with Retry-After. ' +
      'A call that failed stores nothing, so it can be retried with the same key. Keys are scoped to the API key.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    examples: { uuid: { summary: 'A UUID per logical call', value: '5f0c2d1e-8a53-4bb0-9a54-0b4b1f3c7e11' } },
  },
} as const;

export const json = (
  description: string,
  schema: object,
  examples: Record<string, { summary: string; value: unknown }>,
  responseHeaders: Record<string, object> = headers(),
): object => ({
  description,
  headers: responseHeaders,
  content: { 'application/json': { schema, examples } },
});

function errorExamples(codes: ErrorCode[]): Record<string, { summary: string; value: unknown }> {
  return Object.fromEntries(
    codes.flatMap((code) =>
      ERROR_EXAMPLES[code].map((e, i) => [e.name, { summary: `${code}: ${e.summary}`, value: errorExample(code, i) }]),
    ),
  );
}

/** The Error body schema: the spec's {error, message} and this service's additions. */
export const errorSchema = {
  title: 'Error',
  description:
    'Every error answer. The spec defines `error` and `message`; `requestId` and `param` are additions, and some codes carry extra fields.',
  type: 'object',
  properties: {
    error: {
      type: 'string',
      enum: CLIENT_ERROR_CODES,
      description: `Machine-readable code:\n${CLIENT_ERROR_CODES.map((c) => `- \`${c}\` (${ERROR_CATALOGUE[c].status}${ERROR_CATALOGUE[c].spec ? '' : ', extension'}): ${ERROR_CATALOGUE[c].when}`).join('\n')}`,
    },
    message: {
      type: 'string',
      description: 'What went wrong and how to fix it, for people. Never parse it: use `error` and `param`.',
    },
    requestId: { type: 'string', description: 'The X-Request-Id of this answer.', examples: [EXAMPLE_REQUEST_ID] },
    param: {
      type: 'string',
      description: 'invalid_request about one field: its path in the body, e.g. `stops[3].deadline`.',
      examples: ['stops[3].deadline'],
    },
    required: { type: 'integer', minimum: 0, description: 'insufficient_stops: stops this call needs.' },
    balance: { type: 'integer', minimum: 0, description: "insufficient_stops: the key's current balance." },
    limit: {
      type: 'integer',
      minimum: 1,
      description: 'sandbox_rate_limited: the cap that was reached (calls per minute or stops per day).',
    },
    resetAt: { type: 'string', format: 'date-time', description: 'sandbox_rate_limited: when the cap frees up (UTC).' },
  },
  required: ['error', 'message', 'requestId'],
  examples: CLIENT_ERROR_CODES.map((code) => errorExample(code)),
};

export const insufficientStopsSchema = {
  title: 'InsufficientStopsError',
  description: '402: the balance is lower than the stops sent; nothing was debited.',
  allOf: [ref('schemas', 'Error')],
  properties: { error: { const: 'insufficient_stops' } },
  required: ['required', 'balance'],
};

/** An Error response limited to `codes`, with one example per code. */
export function errorResponse(
  description: string,
  codes: ErrorCode[],
  options: { headers?: Record<string, object>; schema?: object } = {},
): object {
  const schema = options.schema ?? { allOf: [ref('schemas', 'Error')], properties: { error: { enum: codes } } };
  return json(description, schema, errorExamples(codes), { ...headers(), ...options.headers });
}

/** Any other error: a path or method this document does not list (404, 405, 501), or an unexpected failure (500). */
export const defaultErrorResponse = errorResponse(
  'Any other error: 404 not_found or 405 method_not_allowed (with `Allow`) for a path or method not listed here, 501 not_implemented for an unknown HTTP method, 500 internal_error for a bug (no internals; the message quotes the request id).',
  ['not_found', 'method_not_allowed', 'not_implemented', 'internal_error'],
  { headers: { Allow: ref('headers', 'Allow') } },
);

export const unauthorizedResponse = errorResponse('Missing, malformed, unknown or revoked key.', ['unauthorized'], {
  headers: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
});
export const authRateLimitedResponse = errorResponse(
  'Extension: too many failed authentications from this address (AUTH_FAILURES_PER_MINUTE).',
  ['rate_limited'],
  { headers: { 'Retry-After': ref('headers', 'Retry-After'), ...RATE_LIMIT_REFUSAL_HEADERS } },
);
export const requestTimeoutResponse = errorResponse(
  'Extension: the body did not arrive whole within BODY_TIMEOUT_MS (15 s by default); the connection is closed.',
  ['request_timeout'],
);
export const payloadTooLargeResponse = errorResponse(
  'Extension: the body is larger than the largest valid request of its endpoint (or BODY_LIMIT_BYTES when set); the message names the limit and what to shrink.',
  ['payload_too_large'],
);
export const storageUnavailableResponse = errorResponse(
  'Extension: the database is busy or full; nothing was charged.',
  ['storage_unavailable'],
  { headers: { 'Retry-After': ref('headers', 'Retry-After') } },
);

/** Retry-After on the answers that sometimes carry it. */
export const RETRY_AFTER_SOMETIMES = {
  'Retry-After': {
    ...HEADERS['Retry-After'],
    required: false,
    description: 'Whole seconds to wait; sent with overloaded, storage_unavailable and idempotency_in_progress.',
  },
};

/** The error answers of a paid call (optimize, plans): the same key rules, billing, Idempotency-Key and failures. */
export const PAID_CALL_ERRORS = {
  400: errorResponse('Invalid body (`param` names the field), or a test key past its per-call limits.', [
    'invalid_request',
    'sandbox_limit',
    'sandbox_addresses_unsupported',
  ]),
  401: unauthorizedResponse,
  402: errorResponse('Live key: balance lower than the stops sent. Nothing was debited.', ['insufficient_stops'], {
    schema: { $ref: '#/components/schemas/InsufficientStopsError' },
  }),
  409: errorResponse(
    'Extension: the Idempotency-Key was used with another body (or on the other paid endpoint), or its first call is still running (Retry-After).',
    ['idempotency_conflict', 'idempotency_in_progress'],
    { headers: RETRY_AFTER_SOMETIMES },
  ),
  408: requestTimeoutResponse,
  413: payloadTooLargeResponse,
  422: errorResponse(
    'An address could not be geocoded (not found, the geocoding services failed, or only located more coarsely than this service accepts); the message names each one. Nothing was charged.',
    ['geocoding_failed'],
  ),
  429: errorResponse(
    'Test key: per-minute or per-day cap reached (`limit`, `resetAt`); or, extension: too many failed authentications from this address, or too many calls in flight for one live key.',
    ['sandbox_rate_limited', 'rate_limited'],
    { headers: { 'Retry-After': ref('headers', 'Retry-After'), ...RATE_LIMIT_REFUSAL_HEADERS } },
  ),
  502: errorResponse('Optimization failed (routing, solving or the request deadline). Nothing was charged.', [
    'optimization_failed',
  ]),
  503: errorResponse(
    'Test key: the sandbox engine is unavailable; or, extension: the solver queue is full, or the database is busy. Nothing was charged.',
    ['sandbox_unavailable', 'overloaded', 'storage_unavailable'],
    { headers: RETRY_AFTER_SOMETIMES },
  ),
  default: defaultErrorResponse,
};
