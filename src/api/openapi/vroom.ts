/**
 * POST /api/v1/vroom in the OpenAPI document: VROOM's request (the schema objects that validate it), VROOM's
 * answer with this service's billing fields, and its errors in VROOM's `{code, error}` body (each with the
 * service's `errorCode`), at the statuses of a paid call.
 */
import { CLIENT_ERROR_CODES, ERROR_CATALOGUE, type ErrorCode } from '../../errors.js';
import { REASONS as UNASSIGNED_REASONS } from '../../solver/fleet-abi.js';
import {
  VROOM_CODES,
  vroomErrorBody,
  vroomJobSchema,
  vroomOptionsSchema,
  vroomProfileMatricesSchema,
  vroomRequestSchema,
  vroomShipmentSchema,
  vroomShipmentStepSchema,
  vroomCostsSchema,
  vroomVehicleSchema,
} from '../vroom/schema.js';
import { ERROR_EXAMPLES, EXAMPLE_REQUEST_ID, errorExample } from './error-examples.js';
import {
  HEADERS,
  RATE_LIMIT_REFUSAL_HEADERS,
  RETRY_AFTER_SOMETIMES,
  defaultErrorResponse,
  headers,
  json,
  ref,
} from './parts.js';
import { VROOM_REQUEST_EXAMPLES, VROOM_RESPONSE_EXAMPLES } from './vroom-examples.js';
import { billingFields } from './route-parts.js';

const integer = (description: string) => ({ type: 'integer', description });
const amount = (description: string) => ({ type: 'array', items: { type: 'integer', minimum: 0 }, description });
const violations = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      cause: {
        type: 'string',
        enum: [
          'delay',
          'lead_time',
          'load',
          'max_tasks',
          'skills',
          'precedence',
          'missing_break',
          'max_travel_time',
          'max_distance',
        ],
        description: 'VROOM’s violation cause.',
      },
      duration: { type: 'integer', description: 'Seconds early (lead_time) or late (delay).' },
    },
    required: ['cause'],
    additionalProperties: false,
  },
  description:
    'Empty when solving (every constraint is hard, as in VROOM’s solving mode). In plan mode (`options.c`), what the given route breaks, VROOM’s way: on a step, on a route (one per cause, durations added) and in the summary.',
};
const coordinates = {
  type: 'array',
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '`[lon, lat]` as the request gave it.',
};
const totals = {
  cost: integer(
    "VROOM's cost, what the solver minimises: `fixed` per vehicle plus each leg's cost (by default the travel time in seconds).",
  ),
  setup: integer('Setup time, seconds.'),
  service: integer('Service time, seconds.'),
  duration: integer('Travel time, seconds.'),
  waiting_time: integer('Waiting for time windows, seconds.'),
  priority: integer('Sum of the priorities of the tasks served.'),
  violations,
  delivery: amount('With amounts: the sum delivered (job deliveries and shipment amounts).'),
  pickup: amount('With amounts: the sum picked up (job pickups and shipment amounts).'),
  distance: integer('Metres, when distances are known: without matrices, or with matrices that have distances.'),
};
const TOTALS_REQUIRED = ['cost', 'setup', 'service', 'duration', 'waiting_time', 'priority', 'violations'];

const vroomStep = {
  title: 'VroomStep',
  description: 'One step of a route: the start and the end (when the vehicle has them), each task, each break.',
  type: 'object',
  properties: {
    type: {
      type: 'string',
      enum: ['start', 'job', 'pickup', 'delivery', 'break', 'end'],
      description: 'What happens here.',
    },
    id: integer('The task id (job, pickup, delivery), or the break id.'),
    description: { type: 'string', description: "The task's description, when given." },
    location: coordinates,
    location_index: integer('The row, when the request gave one.'),
    setup: integer('Setup time before the service, seconds.'),
    service: integer('Service time, seconds.'),
    waiting_time: integer('Waiting before service starts, seconds.'),
    load: amount('With amounts: on board after the step.'),
    arrival: integer("Arrival, on the request's time scale (seconds)."),
    duration: integer('Travel time so far, seconds.'),
    distance: integer('Metres so far, when distances are known.'),
    violations,
  },
  required: ['type', 'setup', 'service', 'waiting_time', 'arrival', 'duration', 'violations'],
};
const vroomRoute = {
  title: 'VroomRoute',
  description: 'The route of one vehicle that serves at least one task.',
  type: 'object',
  properties: {
    vehicle: integer('The vehicle id.'),
    steps: { type: 'array', items: vroomStep, description: 'In driving order.' },
    ...totals,
    description: { type: 'string', description: "The vehicle's description, when given." },
    geometry: { type: 'string', description: 'With options.g: the encoded polyline (precision 5) of the route.' },
  },
  required: ['vehicle', 'steps', ...TOTALS_REQUIRED],
};
const vroomSummary = {
  title: 'VroomSummary',
  description: 'Totals over the routes.',
  type: 'object',
  properties: {
    routes: integer('Routes (vehicles used).'),
    unassigned: integer('Tasks left out.'),
    ...totals,
  },
  required: ['routes', 'unassigned', ...TOTALS_REQUIRED],
};
const vroomUnassigned = {
  title: 'VroomUnassigned',
  description: 'A task no vehicle serves (both tasks of a shipment are listed).',
  type: 'object',
  properties: {
    id: integer('The task id.'),
    type: { type: 'string', enum: ['job', 'pickup', 'delivery'], description: 'Which kind of task.' },
    description: { type: 'string', description: 'As given.' },
    location: coordinates,
    location_index: integer('As given.'),
    reason: {
      type: 'string',
      enum: [...Object.values(UNASSIGNED_REASONS), 'unplanned'],
      description:
        "Extension: why (the plans' reasons: capacity, shift, allowedVehicles for skills, …; `unplanned` in plan mode: in no vehicle's steps).",
    },
  },
  required: ['id', 'type', 'reason'],
};
const vroomResponse = {
  title: 'VroomResponse',
  description: "VROOM's output (`code` 0) and what the call cost.",
  type: 'object',
  properties: {
    code: { type: 'integer', const: 0, description: '0: solved.' },
    summary: vroomSummary,
    unassigned: { type: 'array', items: vroomUnassigned, description: 'Tasks left out, in request order.' },
    routes: { type: 'array', items: vroomRoute, description: 'One per vehicle used, in the order of `vehicles`.' },
    ...billingFields,
  },
  required: ['code', 'summary', 'unassigned', 'routes', 'stopsCharged'],
};

const vroomError = {
  title: 'VroomError',
  description:
    "Every error of POST /api/v1/vroom: VROOM's `{code, error}` (`error` is the message) with this service's `errorCode` and the fields of that code.",
  type: 'object',
  properties: {
    code: {
      type: 'integer',
      enum: Object.values(VROOM_CODES),
      description:
        "VROOM's code: 2 input error (every 4xx), 3 routing error (the routing engine failed), 1 internal error (any other 5xx).",
    },
    error: { type: 'string', description: 'What went wrong and how to fix it.' },
    errorCode: {
      type: 'string',
      enum: CLIENT_ERROR_CODES,
      description: "This service's error code (see the Error schema).",
    },
    requestId: { type: 'string', description: 'The X-Request-Id of this answer.', examples: [EXAMPLE_REQUEST_ID] },
    param: { type: 'string', description: 'invalid_request: the path of the field, e.g. `vehicles[0].breaks`.' },
    required: { type: 'integer', minimum: 0, description: 'insufficient_stops: stops this call needs.' },
    balance: { type: 'integer', minimum: 0, description: "insufficient_stops: the key's balance." },
    limit: { type: 'integer', minimum: 1, description: 'sandbox_rate_limited: the cap that was reached.' },
    resetAt: { type: 'string', format: 'date-time', description: 'sandbox_rate_limited: when the cap frees up.' },
  },
  required: ['code', 'error', 'errorCode', 'requestId'],
};

const ROUTING_EXAMPLES = new Set(['optimizationFailed', 'sandboxUnavailable']);

/** A VROOM error answer limited to `codes`, each example the service's own in VROOM's body. */
function vroomErrorResponse(
  description: string,
  codes: ErrorCode[],
  extraHeaders: Record<string, object> = {},
): object {
  const examples = Object.fromEntries(
    codes.flatMap((code) =>
      ERROR_EXAMPLES[code].map((e, i) => [
        `vroom_${e.name}`,
        {
          summary: `${code}: ${e.summary}`,
          value: vroomErrorBody(ERROR_CATALOGUE[code].status, {
            ...errorExample(code, i),
            // these examples are the routing engine's failures: VROOM's code 3
            ...(ROUTING_EXAMPLES.has(e.name) ? { code: VROOM_CODES.routing } : {}),
          }),
        },
      ]),
    ),
  );
  const schema = { allOf: [ref('schemas', 'VroomError')], properties: { errorCode: { enum: codes } } };
  return json(description, schema, examples, { ...headers(), ...extraHeaders });
}

export const VROOM_SCHEMAS: Record<string, object> = {
  VroomRequest: vroomRequestSchema,
  VroomJob: vroomJobSchema,
  VroomShipment: vroomShipmentSchema,
  VroomShipmentStep: vroomShipmentStepSchema,
  VroomVehicle: vroomVehicleSchema,
  VroomCosts: vroomCostsSchema,
  VroomProfileMatrices: vroomProfileMatricesSchema,
  VroomOptions: vroomOptionsSchema,
  VroomResponse: vroomResponse,
  VroomSummary: vroomSummary,
  VroomRoute: vroomRoute,
  VroomStep: vroomStep,
  VroomUnassigned: vroomUnassigned,
  VroomError: vroomError,
};

const retryAfter = { 'Retry-After': ref('headers', 'Retry-After') };

export const vroomPath = {
  post: {
    tags: ['Optimization'],
    summary: 'Plan routes from a VROOM request (VROOM / openrouteservice format)',
    description:
      "Extension. VROOM's input (jobs, shipments, vehicles, matrices per profile, options.g) answered in VROOM's output (code, summary, unassigned, routes[].steps), on the request's own time scale. " +
      'Fields VROOM accepts that this service does not answer 400 naming the field. Same keys, billing and sandbox rules as plans: one stop per job, two per shipment, unassigned ones included; a failed call is never charged. ' +
      'Errors use VROOM\'s body `{code, error}` plus `errorCode` and the service\'s status. See docs/api.md, "Coming from VROOM / openrouteservice".',
    operationId: 'vroom',
    security: [{ bearer: [] }],
    parameters: [ref('parameters', 'Idempotency-Key'), ref('parameters', 'X-Request-Id')],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: ref('schemas', 'VroomRequest'), examples: VROOM_REQUEST_EXAMPLES },
      },
    },
    responses: {
      200: json(
        'The routes (`code` 0). Test keys: RateLimit headers for the per-minute call window.',
        ref('schemas', 'VroomResponse'),
        VROOM_RESPONSE_EXAMPLES,
        headers('Idempotent-Replayed', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'),
      ),
      400: vroomErrorResponse(
        'Code 2: an invalid or unsupported field (`param` names it), or a test key past its per-call limits.',
        ['invalid_request', 'sandbox_limit'],
      ),
      401: vroomErrorResponse('Code 2: missing, malformed, unknown or revoked key.', ['unauthorized'], {
        'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      }),
      402: vroomErrorResponse('Code 2: live key, balance lower than the tasks sent; nothing was debited.', [
        'insufficient_stops',
      ]),
      408: vroomErrorResponse('Code 2: the body did not arrive whole in time.', ['request_timeout']),
      409: vroomErrorResponse(
        'Code 2: the Idempotency-Key was used with another body or endpoint, or its first call is still running.',
        ['idempotency_conflict', 'idempotency_in_progress'],
        RETRY_AFTER_SOMETIMES,
      ),
      413: vroomErrorResponse('Code 2: the body is larger than the largest valid request.', ['payload_too_large']),
      429: vroomErrorResponse(
        'Code 2: test key past its per-minute or per-day cap, or too many calls or failed authentications.',
        ['sandbox_rate_limited', 'rate_limited'],
        { ...retryAfter, ...RATE_LIMIT_REFUSAL_HEADERS },
      ),
      500: vroomErrorResponse('Code 1: an unexpected failure (no internals).', ['internal_error']),
      502: vroomErrorResponse(
        'Code 3 when the routing engine failed, code 1 when the solver failed or the deadline passed. Nothing was charged.',
        ['optimization_failed'],
      ),
      503: vroomErrorResponse(
        'Code 3 for a test key whose sandbox engine is unavailable; code 1 when the optimizer is busy or the database is. Nothing was charged.',
        ['sandbox_unavailable', 'overloaded', 'storage_unavailable'],
        { 'Retry-After': { ...HEADERS['Retry-After'], required: false } },
      ),
      default: defaultErrorResponse,
    },
  },
};
