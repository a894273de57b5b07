/**
 * The OpenAPI 3.1 document, built from the same JSON schemas that validate
 * requests (their shared parts become named components) and from the error
 * catalogue. Served at GET /api/v1/openapi.json and rendered at /docs.
 */
import { checkoutRequestSchema } from '../checkout/schema.js';
import {
  addressSchema,
  coordinatesSchema,
  locationJsonSchema,
  stopJsonSchema,
  stopWithAddressSchema,
  stopWithCoordinatesSchema,
} from '../../calls/location-schema.js';
import { matrixSchema } from '../../calls/matrix-schema.js';
import { planStopSchema } from '../plans/schema.js';
import { optimizeRequestSchema } from '../optimize/schema.js';
import { stripeWebhookOpenApi } from './payments.js';
import {
  BALANCE_EXAMPLES,
  CHECKOUT_REQUEST_EXAMPLES,
  CHECKOUT_RESPONSE_EXAMPLES,
  OPTIMIZE_REQUEST_EXAMPLES,
  OPTIMIZE_RESPONSE_EXAMPLES,
} from './examples.js';
import {
  annotate,
  billingFields,
  dateTime,
  lateStop,
  nullable,
  routeGeometryFields,
  routeLeg,
  routeWarning,
  scheduleEntry,
  waypoint,
  waypointGeocoding,
} from './route-parts.js';
import { PLAN_SCHEMAS, plansPath } from './plans.js';
import { JOB_SCHEMAS, jobsPaths } from './jobs.js';
import { VROOM_SCHEMAS, vroomPath } from './vroom.js';
import {
  HEADERS,
  PAID_CALL_ERRORS,
  PARAMETERS,
  RATE_LIMIT_REFUSAL_HEADERS,
  authRateLimitedResponse,
  defaultErrorResponse,
  errorResponse,
  errorSchema,
  headers,
  insufficientStopsSchema,
  json,
  payloadTooLargeResponse,
  ref,
  requestTimeoutResponse,
  storageUnavailableResponse,
  unauthorizedResponse,
} from './parts.js';

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
    ...routeGeometryFields,
    ...billingFields,
    warnings: {
      type: 'array',
      items: routeWarning,
      minItems: 1,
      description:
        'Extension: present only when some location was geocoded coarser than street level, one entry per such location.',
    },
  },
  required: ['order', 'waypoints', 'totalDistanceKm', 'estimatedTimeMin', 'stopsCharged'],
};

const balanceResponse = {
  oneOf: [
    {
      title: 'Live key',
      type: 'object',
      properties: { stopsBalance: { type: 'integer' } },
      required: ['stopsBalance'],
    },
    {
      title: 'Test key',
      type: 'object',
      properties: {
        sandbox: { const: true },
        sandboxStopsRemainingToday: { type: 'integer' },
        sandboxCallsRemainingThisMinute: { type: 'integer' },
      },
      required: ['sandbox', 'sandboxStopsRemainingToday', 'sandboxCallsRemainingThisMinute'],
    },
  ],
};

annotate(optimizeResponse, 'OptimizeResponse', 'The optimized route and what the call cost.', {
  order: 'Stop ids in visiting order.',
  waypoints: 'One entry per stop, in visiting order.',
  totalDistanceKm: 'Start → stops → end point (when sent), in km, rounded half up to 2 decimals.',
  estimatedTimeMin:
    'From departure to the end point (or the end of the last service), travel and service included, in minutes, 1 decimal.',
  schedule: 'Estimated arrival at each stop, in visiting order.',
  departAt: 'Departure, UTC with `Z`.',
  returnAt: 'Arrival at the end point, UTC with `Z`; null when no end point was sent.',
  lateStops: 'Stops arriving after their deadline, in visiting order; null when there are none.',
});
annotate(balanceResponse, 'BalanceResponse', 'Live keys: the prepaid balance. Test keys: the sandbox quotas.');

const checkoutResponse = {
  title: 'CheckoutResponse',
  description: 'Where to pay.',
  type: 'object',
  properties: {
    url: {
      type: 'string',
      format: 'uri',
      description: 'The payment page (Stripe Checkout). After payment the live key is e-mailed.',
    },
  },
  required: ['url'],
};

/** Named components; any schema object used elsewhere by identity becomes a $ref to its name. */
const SCHEMAS: Record<string, object> = {
  OptimizeRequest: optimizeRequestSchema,
  Location: locationJsonSchema,
  Coordinates: coordinatesSchema,
  Address: addressSchema,
  Stop: stopJsonSchema,
  StopWithCoordinates: stopWithCoordinatesSchema,
  StopWithAddress: stopWithAddressSchema,
  MatrixIndex: locationJsonSchema.oneOf[1],
  StopWithMatrixIndex: stopJsonSchema.oneOf[1],
  PlanStopWithMatrixIndex: planStopSchema.oneOf[1],
  TravelMatrix: matrixSchema,
  RouteLeg: routeLeg,
  OptimizeResponse: optimizeResponse,
  Waypoint: waypoint,
  WaypointGeocoding: waypointGeocoding,
  RouteWarning: routeWarning,
  ScheduleEntry: scheduleEntry,
  LateStop: lateStop,
  BalanceResponse: balanceResponse,
  CheckoutRequest: checkoutRequestSchema,
  CheckoutResponse: checkoutResponse,
  ...PLAN_SCHEMAS,
  ...JOB_SCHEMAS,
  ...VROOM_SCHEMAS,
  Error: errorSchema,
  InsufficientStopsError: insufficientStopsSchema,
};

const COMBINATORS = new Set(['oneOf', 'anyOf', 'allOf']);

/**
 * Replaces every object that is a named schema (other than the root being defined) by a $ref.
 * A branch of oneOf/anyOf/allOf also keeps its target's `type` beside the $ref (the same constraint,
 * said twice): Swagger UI labels a collapsed schema from its branches without following their $refs,
 * so Location read "(any | any)" instead of "(object | object)".
 */
function withRefs(node: unknown, byObject: Map<object, string>, root = true, branch = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withRefs(n, byObject, false, branch));
  if (node && typeof node === 'object') {
    const name = byObject.get(node);
    if (name && !root) {
      const type = (node as { type?: unknown }).type;
      return branch && typeof type === 'string' ? { ...ref('schemas', name), type } : ref('schemas', name);
    }
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, withRefs(v, byObject, false, COMBINATORS.has(k))]),
    );
  }
  return node;
}

/** Strips our own annotations (x-message, $id) so the document stays plain JSON Schema. */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema)
        .filter(([k]) => k !== 'x-message' && k !== '$id')
        .map(([k, v]) => [k, clean(v)]),
    );
  }
  return schema;
}

/** Extra paths contributed by other modules (packs, ...). */
export type PathItems = Record<string, object>;

const DESCRIPTION = `Optimizes last-mile delivery routes: send a start, an optional end and 2 to 200 stops (coordinates or French street addresses, Europe/Paris deadlines, service times); get back the best visiting order, an arrival schedule and the stops that would be late. Or plan a fleet: 1 to 50 vehicles (shifts, capacities) and 2 to 1000 stops (time windows, demands, allowed vehicles) in one call to \`POST /api/v1/plans\`.

**Keys.** Every operation except checkout and the pack list needs \`Authorization: Bearer <API_KEY>\`. Test keys (\`svc_test_…\`, free from the console at /console) are sandboxed: at most 10 stops per call, 20 calls per minute, 200 stops per Paris day, coordinates only. Live keys (\`svc_live_…\`) are prepaid: one stop is debited per stop sent, and a failed call is never charged.

**Errors.** Every error is \`{error, message, requestId}\` (see the Error schema for every code); validation errors add \`param\`, the path of the offending field. Rate-limited answers carry \`Retry-After\` and the \`RateLimit-*\` headers.

**Extensions** to the specification are marked "Extension".`;

export function buildOpenApiDocument(serverUrl: string, extraPaths: PathItems = {}): object {
  const byObject = new Map<object, string>(Object.entries(SCHEMAS).map(([name, schema]) => [schema, name]));
  const schemas = Object.fromEntries(
    Object.entries(SCHEMAS).map(([name, schema]) => [name, withRefs(schema, byObject)]),
  );
  return clean({
    openapi: '3.1.0',
    info: { title: 'Route Optimization Service', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: serverUrl, description: 'This server (PUBLIC_BASE_URL).' }],
    tags: [
      {
        name: 'Optimization',
        description:
          'Order the stops of a route and estimate its schedule. Prepaid per stop (live keys) or sandboxed (test keys).',
      },
      {
        name: 'Account',
        description: 'What a key has left: the prepaid balance of a live key, or the sandbox quotas of a test key.',
      },
      {
        name: 'Payments',
        description:
          'Prepaid packs of stops, bought through Stripe Checkout without a key; the live key is e-mailed after payment. Stripe confirms payments to the webhook below (Webhooks).',
      },
    ],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'svc_test_… or svc_live_… (opaque)',
          description:
            'An API key: `svc_test_` (sandbox, free) or `svc_live_` (debited) followed by 43 URL-safe characters.',
        },
      },
      headers: HEADERS,
      parameters: PARAMETERS,
      schemas,
    },
    paths: {
      '/api/v1/optimize': {
        post: {
          tags: ['Optimization'],
          summary: 'Optimize a route',
          description:
            'Returns the visiting order that minimises total lateness first, then total duration, with the schedule in UTC and the late stops. ' +
            'Live keys are debited one stop per stop sent (402 and nothing debited when the balance is short); test keys are checked against the sandbox caps. ' +
            'Any failure after the debit gives it back before the error is answered.',
          operationId: 'optimize',
          security: [{ bearer: [] }],
          parameters: [ref('parameters', 'Idempotency-Key'), ref('parameters', 'X-Request-Id')],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/OptimizeRequest' },
                examples: OPTIMIZE_REQUEST_EXAMPLES,
              },
            },
          },
          responses: {
            200: json(
              'The optimized route. Test keys: RateLimit headers for the per-minute call window.',
              { $ref: '#/components/schemas/OptimizeResponse' },
              OPTIMIZE_RESPONSE_EXAMPLES,
              headers('Idempotent-Replayed', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'),
            ),
            ...PAID_CALL_ERRORS,
          },
        },
      },
      '/api/v1/plans': plansPath,
      ...jobsPaths,
      '/api/v1/vroom': vroomPath,
      '/api/v1/balance': {
        get: {
          tags: ['Account'],
          summary: 'Read the balance (live key) or the sandbox quotas (test key)',
          description:
            'Live key: `{stopsBalance}`. Test key: `{sandbox: true, sandboxStopsRemainingToday, sandboxCallsRemainingThisMinute}`. Reading costs nothing and uses no quota.',
          operationId: 'balance',
          security: [{ bearer: [] }],
          parameters: [ref('parameters', 'X-Request-Id')],
          responses: {
            200: json('The balance or the quotas.', { $ref: '#/components/schemas/BalanceResponse' }, BALANCE_EXAMPLES),
            401: unauthorizedResponse,
            429: authRateLimitedResponse,
            503: storageUnavailableResponse,
            default: defaultErrorResponse,
          },
        },
      },
      '/api/v1/checkout': {
        post: {
          tags: ['Payments'],
          summary: 'Get a payment link for a prepaid pack',
          description:
            'No key needed. Returns the Stripe Checkout page of the pack; after payment the live key (or, for an e-mail that already has one, a top-up) is e-mailed to `email`.',
          operationId: 'checkout',
          security: [],
          parameters: [ref('parameters', 'X-Request-Id')],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CheckoutRequest' },
                examples: CHECKOUT_REQUEST_EXAMPLES,
              },
            },
          },
          responses: {
            200: json(
              'The payment page.',
              { $ref: '#/components/schemas/CheckoutResponse' },
              CHECKOUT_RESPONSE_EXAMPLES,
            ),
            400: errorResponse('Invalid body: `param` names the field.', ['invalid_request']),
            408: requestTimeoutResponse,
            413: payloadTooLargeResponse,
            429: errorResponse(
              'Extension: too many checkout requests from this address, or in total.',
              ['rate_limited'],
              { headers: { 'Retry-After': ref('headers', 'Retry-After'), ...RATE_LIMIT_REFUSAL_HEADERS } },
            ),
            503: errorResponse(
              'Payments are not configured on this server, or the payment provider is unavailable (the spec leaves this code open); or, extension, too many request bodies are being received at once.',
              ['payment_unavailable', 'overloaded'],
            ),
            default: defaultErrorResponse,
          },
        },
      },
      ...extraPaths,
    },
    webhooks: { stripeCheckoutEvent: stripeWebhookOpenApi },
  }) as object;
}
