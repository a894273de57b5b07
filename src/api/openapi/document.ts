/**
 * The OpenAPI 3.1 document, built from the same JSON schemas that validate
 * requests. Served at GET /api/v1/openapi.json.
 */
import { checkoutRequestSchema } from '../checkout/schema.js';
import { locationJsonSchema, optimizeRequestSchema, stopJsonSchema } from '../optimize/schema.js';

const dateTime = { type: 'string', format: 'date-time' };
const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] });

const errorBody = (codes: string[], extra: Record<string, object> = {}, required: string[] = []): object => ({
  type: 'object',
  properties: { error: { type: 'string', enum: codes }, message: { type: 'string' }, ...extra },
  required: ['error', 'message', ...required],
});

const errorResponse = (description: string, codes: string[], extra?: Record<string, object>, required?: string[], headers?: object): object => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: errorBody(codes, extra, required) } },
});

const json = (schema: object, description: string): object => ({ description, content: { 'application/json': { schema } } });

const waypoint = {
  type: 'object',
  properties: { id: { type: 'string' }, order: { type: 'integer', minimum: 1 }, latitude: nullable({ type: 'number' }), longitude: nullable({ type: 'number' }) },
  required: ['id', 'order', 'latitude', 'longitude'],
};
const scheduleEntry = { type: 'object', properties: { colisId: { type: 'string' }, arrivee: dateTime }, required: ['colisId', 'arrivee'] };
const lateStop = {
  type: 'object',
  properties: { colisId: { type: 'string' }, arrivee: { type: 'string' }, limite: { type: 'string' }, retardMin: { type: 'number' } },
  required: ['colisId', 'arrivee', 'limite', 'retardMin'],
};

const optimizeResponse = {
  type: 'object',
  properties: {
    order: { type: 'array', items: { type: 'string' } },
    waypoints: { type: 'array', items: waypoint },
    totalDistanceKm: { type: 'number' },
    estimatedTimeMin: { type: 'number' },
    schedule: nullable({ type: 'array', items: scheduleEntry }),
    departAt: nullable(dateTime),
    returnAt: nullable(dateTime),
    lateStops: nullable({ type: 'array', items: lateStop }),
    stopsCharged: { type: 'integer' },
    stopsBalance: { type: 'integer', description: 'Live keys only.' },
    sandbox: { type: 'boolean', const: true, description: 'Test keys only.' },
    sandboxStopsRemainingToday: { type: 'integer', description: 'Test keys only.' },
  },
  required: ['order', 'waypoints', 'totalDistanceKm', 'estimatedTimeMin', 'stopsCharged'],
};

const balanceResponse = {
  oneOf: [
    { title: 'Live key', type: 'object', properties: { stopsBalance: { type: 'integer' } }, required: ['stopsBalance'] },
    {
      title: 'Test key',
      type: 'object',
      properties: { sandbox: { const: true }, sandboxStopsRemainingToday: { type: 'integer' }, sandboxCallsRemainingThisMinute: { type: 'integer' } },
      required: ['sandbox', 'sandboxStopsRemainingToday', 'sandboxCallsRemainingThisMinute'],
    },
  ],
};

const unauthorizedResponse = errorResponse('Missing, invalid or revoked key.', ['unauthorized']);
const retryAfter = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } };

/** Strips our own annotations (x-message, $id) so the document stays plain JSON Schema. */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== 'x-message' && k !== '$id').map(([k, v]) => [k, clean(v)]));
  }
  return schema;
}

/** Extra paths contributed by other modules (packs, webhooks, ...). */
export type PathItems = Record<string, object>;

export function buildOpenApiDocument(serverUrl: string, extraPaths: PathItems = {}): object {
  return clean({
    openapi: '3.1.0',
    info: {
      title: 'Route Optimization Service',
      version: '1.0.0',
      description: 'Optimizes last-mile delivery routes. Prepaid per stop: live keys are debited one stop per stop sent; test keys are free and sandboxed. A failed call is never charged.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_test_… (sandbox) or svc_live_… (debited) key.' } },
      schemas: {
        Location: locationJsonSchema,
        Stop: stopJsonSchema,
        OptimizeRequest: optimizeRequestSchema,
        OptimizeResponse: optimizeResponse,
        BalanceResponse: balanceResponse,
        CheckoutRequest: checkoutRequestSchema,
        CheckoutResponse: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] },
        Error: errorBody([]),
      },
    },
    paths: {
      '/api/v1/optimize': {
        post: {
          summary: 'Optimize a route',
          operationId: 'optimize',
          security: [{ bearer: [] }],
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 }, description: 'Extension: replays the stored response for the same key and body within 24 hours.' }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/OptimizeRequest' } } } },
          responses: {
            200: json({ $ref: '#/components/schemas/OptimizeResponse' }, 'The optimized route.'),
            400: errorResponse('Invalid body, or a test key past its per-call limits.', ['invalid_request', 'sandbox_limit', 'sandbox_addresses_unsupported']),
            401: unauthorizedResponse,
            402: errorResponse('Live key: balance lower than the stops sent. Nothing was debited.', ['insufficient_stops'],
              { required: { type: 'integer' }, balance: { type: 'integer' } }, ['required', 'balance']),
            409: errorResponse('Extension: the Idempotency-Key was used with another body.', ['idempotency_conflict']),
            413: errorResponse('Body too large.', ['payload_too_large']),
            422: errorResponse('An address could not be geocoded. Nothing was charged.', ['geocoding_failed']),
            429: errorResponse('Test key: per-minute or per-day cap reached.', ['sandbox_rate_limited'],
              { limit: { type: 'integer' }, resetAt: dateTime }, ['limit', 'resetAt'], retryAfter),
            502: errorResponse('Optimization failed. Nothing was charged.', ['optimization_failed']),
            503: errorResponse('Test key: the sandbox engine is unavailable; or the server is overloaded (extension).', ['sandbox_unavailable', 'overloaded'], {}, [], retryAfter),
          },
        },
      },
      '/api/v1/balance': {
        get: {
          summary: 'Read the balance (live) or the sandbox quotas (test)',
          operationId: 'balance',
          security: [{ bearer: [] }],
          responses: { 200: json({ $ref: '#/components/schemas/BalanceResponse' }, 'The balance.'), 401: unauthorizedResponse },
        },
      },
      '/api/v1/checkout': {
        post: {
          summary: 'Get a payment link for a prepaid pack',
          operationId: 'checkout',
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CheckoutRequest' } } } },
          responses: {
            200: json({ $ref: '#/components/schemas/CheckoutResponse' }, 'The payment page. After payment the live key is e-mailed.'),
            400: errorResponse('Invalid body.', ['invalid_request']),
            413: errorResponse('Extension: body over the limit for requests without a key (ANONYMOUS_BODY_LIMIT_BYTES).', ['payload_too_large']),
            429: errorResponse('Extension: too many checkout sessions from this address, or in total, this minute.', ['rate_limited'], {}, [], retryAfter),
            503: errorResponse('Payment unavailable.', ['payment_unavailable']),
          },
        },
      },
      ...extraPaths,
    },
  }) as object;
}
