/**
 * POST /api/v1/vroom: VROOM's input format (docs/API.md of VROOM-Project/vroom; also openrouteservice's
 * optimization endpoint), as far as this service supports it. The same schema validates requests and feeds the
 * OpenAPI document. Field names, units and shapes are VROOM's: coordinates `[lon, lat]`, times and durations in
 * whole seconds (arbitrary integers from 0 to 2^32 − 1, as VROOM's), distances in metres, amounts as arrays of
 * integers. The fields VROOM accepts and this service does not are left out of the schema: a body that sends one
 * answers 400 naming it (src/api/vroom/unsupported.ts). What JSON Schema cannot say is src/api/vroom/validate.ts.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { MAX_MATRIX_ROWS, matrixSchema } from '../../calls/matrix-schema.js';
import { MAX_DIMS, MAX_WINDOWS } from '../../solver/abi-constants.generated.js';
import { MAX_VROOM_BREAKS, vroomBreaksSchema } from './breaks.js';
import { vroomStepSchema } from './plan-steps.js';

/** Jobs plus twice the shipments (each shipment is two tasks, as it is billed): the most stops of a plan. */
export const MAX_VROOM_TASKS = 1000;
export const MAX_VROOM_VEHICLES = 50;
/** VROOM's times are unsigned 32-bit integers. */
export const MAX_VROOM_TIME = 4_294_967_295;
const MAX_ID = Number.MAX_SAFE_INTEGER;
const MAX_QUANTITY = 1_000_000_000;

const id = (what: string) =>
  ({
    type: 'integer',
    minimum: 0,
    maximum: MAX_ID,
    'x-message': `must be a whole number from 0 to ${MAX_ID}`,
    description: `${what} (an integer, as VROOM's).`,
    examples: [1],
  }) as const;
const seconds = (description: string) =>
  ({
    type: 'integer',
    minimum: 0,
    maximum: MAX_VROOM_TIME,
    'x-message': `must be a whole number of seconds from 0 to ${MAX_VROOM_TIME}`,
    description,
    examples: [300],
  }) as const;
const text = (description: string) => ({ type: 'string', maxLength: 500, description, examples: ['Bakery'] }) as const;

/** `[lon, lat]`; the ranges are checked in validate.ts, which names a swapped pair. */
export const vroomLocationSchema = {
  type: 'array',
  minItems: 2,
  maxItems: 2,
  items: { type: 'number' },
  'x-message': 'must be [longitude, latitude] (VROOM order: longitude first)',
  description: 'Coordinates `[longitude, latitude]`, WGS 84 decimal degrees (VROOM order: longitude first).',
  examples: [[2.35044, 48.71764]],
} as const;
const matrixIndex = (description: string) =>
  ({
    type: 'integer',
    minimum: 0,
    maximum: MAX_MATRIX_ROWS - 1,
    'x-message': `must be a whole number from 0 to ${MAX_MATRIX_ROWS - 1}: a row of the profile's matrices`,
    description,
    examples: [0],
  }) as const;

/** `[start, end]`, both inclusive. */
export const vroomTimeWindowSchema = {
  type: 'array',
  minItems: 2,
  maxItems: 2,
  items: { type: 'integer', minimum: 0, maximum: MAX_VROOM_TIME },
  'x-message': `must be [start, end], two whole numbers of seconds from 0 to ${MAX_VROOM_TIME}`,
  description:
    '`[start, end]` in seconds, both inclusive: relative times (0 = the start of the planning horizon) or UNIX timestamps; answers use the same scale.',
  examples: [[1600416000, 1600430400]],
} as const;
const timeWindows = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_WINDOWS,
  items: vroomTimeWindowSchema,
  'x-message': `must list 1 to ${MAX_WINDOWS} time windows [start, end]`,
  description: `1 to ${MAX_WINDOWS} windows for the start of service (hard); overlapping windows are merged.`,
} as const;

const amount = (description: string) =>
  ({
    type: 'array',
    maxItems: MAX_DIMS,
    items: { type: 'integer', minimum: 0, maximum: MAX_QUANTITY },
    'x-message': `must be an array of at most ${MAX_DIMS} whole numbers from 0 to ${MAX_QUANTITY}`,
    description: `${description} One integer per dimension (at most ${MAX_DIMS}); every amount and capacity of a request has the same length.`,
    examples: [[1]],
  }) as const;
const skills = {
  type: 'array',
  maxItems: 100,
  items: { type: 'integer', minimum: 0, maximum: MAX_VROOM_TIME },
  description: 'Mandatory skills: only a vehicle holding all of them may serve the task.',
  examples: [[1]],
} as const;
const priority = {
  type: 'integer',
  minimum: 0,
  maximum: 100,
  'x-message': 'must be a whole number from 0 to 100',
  description:
    'From 0 (default) to 100: when not every task fits, the largest sum of priorities is served first, then the most tasks.',
  examples: [0],
} as const;

/** What a job and each step of a shipment share. */
const taskProperties = {
  description: text('Echoed in the answer.'),
  location: vroomLocationSchema,
  location_index: matrixIndex("With `matrices`: the row of this task's place (required then)."),
  setup: seconds(
    'Setup time in seconds before the service (default 0); only at a place no other task and no vehicle start shares.',
  ),
  service: seconds('Service time in seconds (default 0).'),
  time_windows: timeWindows,
} as const;

export const vroomJobSchema = {
  title: 'VroomJob',
  description: 'A place to visit (VROOM `job`).',
  type: 'object',
  properties: {
    id: id('Unique among the jobs'),
    ...taskProperties,
    delivery: amount('Loaded at the start, unloaded here.'),
    pickup: amount('Loaded here, carried to the end of the route.'),
    skills,
    priority,
  },
  required: ['id'],
  additionalProperties: false,
} as const;

export const vroomShipmentStepSchema = {
  title: 'VroomShipmentStep',
  description: 'The pickup or the delivery of a shipment (VROOM `shipment_step`).',
  type: 'object',
  properties: { id: id('Unique among the pickups (or among the deliveries)'), ...taskProperties },
  required: ['id'],
  additionalProperties: false,
} as const;

export const vroomShipmentSchema = {
  title: 'VroomShipment',
  description: 'Picked up at `pickup`, then delivered at `delivery` by the same vehicle (VROOM `shipment`).',
  type: 'object',
  properties: {
    pickup: vroomShipmentStepSchema,
    delivery: vroomShipmentStepSchema,
    amount: amount('Carried from the pickup to the delivery.'),
    skills,
    priority,
  },
  required: ['pickup', 'delivery'],
  additionalProperties: false,
} as const;

/** The most a vehicle's per_hour and per_km may be: a leg's cost stays a 32-bit integer (1e6 s × 100/s + 1e8 m × 10/m). */
export const MAX_PER_HOUR = 360_000;
export const MAX_PER_KM = 10_000;
const rate = (description: string, maximum: number, example: number) =>
  ({
    type: 'integer',
    minimum: 0,
    maximum,
    'x-message': `must be a whole number from 0 to ${maximum}`,
    description,
    examples: [example],
  }) as const;

export const vroomCostsSchema = {
  title: 'VroomCosts',
  description:
    "VROOM's `cost` object; `fixed` may differ between vehicles, `per_hour` and `per_km` are the same for every vehicle of a call. The cost of a route is its vehicle's fixed + per_hour × hours of travel + per_km × km, summed per leg (rounded to a whole number per leg).",
  type: 'object',
  properties: {
    fixed: rate('Cost of using the vehicle (default 0).', 1_000_000_000, 0),
    per_hour: rate(
      'Cost of one hour of travel (default 3600: the cost is the travel time in seconds).',
      MAX_PER_HOUR,
      3600,
    ),
    per_km: rate('Cost of one km (default 0; needs distances).', MAX_PER_KM, 0),
    per_task_hour: rate('Only 0 (the default): a cost of task time is not supported.', MAX_PER_HOUR, 0),
  },
  additionalProperties: false,
} as const;

export const vroomVehicleSchema = {
  title: 'VroomVehicle',
  description: 'A vehicle (VROOM `vehicle`); it needs a start or an end (or both).',
  type: 'object',
  properties: {
    id: id('Unique among the vehicles'),
    profile: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Routing profile (default `car`); every vehicle of a call has the same one.',
      examples: ['car'],
    },
    description: text('Echoed in the route.'),
    start: vroomLocationSchema,
    start_index: matrixIndex('With `matrices`: the row of the start. No start: the route begins at its first task.'),
    end: vroomLocationSchema,
    end_index: matrixIndex('With `matrices`: the row of the end. No end: the route ends at its last task.'),
    capacity: amount('What the vehicle can carry at once. Absent: no limit.'),
    costs: vroomCostsSchema,
    skills,
    type: {
      type: 'string',
      maxLength: 100,
      description: 'Accepted for compatibility; it only matters to `service_per_type`, which is not supported.',
      examples: ['van'],
    },
    time_window: {
      ...vroomTimeWindowSchema,
      description: 'Working hours `[start, end]`: leaves at or after start, done by end.',
    },
    breaks: vroomBreaksSchema(
      vroomTimeWindowSchema,
      seconds('How long the break lasts (default 0).'),
      id('Unique within the vehicle'),
      text('Echoed in its step.'),
    ),
    speed_factor: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 5,
      'x-message': 'must be a number above 0 and at most 5',
      description:
        'Divides every travel time of the vehicle (default 1, two decimals kept); every vehicle of a call has the same one.',
      examples: [1],
    },
    max_tasks: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_VROOM_TASKS,
      'x-message': `must be a whole number from 0 to ${MAX_VROOM_TASKS}`,
      description: 'Most tasks in the route (a shipment counts two).',
      examples: [10],
    },
    max_travel_time: seconds('Most travel time of the route, in seconds (service and waiting not counted).'),
    max_distance: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_VROOM_TIME,
      'x-message': `must be a whole number of metres from 0 to ${MAX_VROOM_TIME}`,
      description: 'Longest route in metres (needs distances: no `matrices`, or `matrices.{profile}.distances`).',
      examples: [100000],
    },
    steps: {
      type: 'array',
      maxItems: MAX_VROOM_TASKS + MAX_VROOM_BREAKS + 2,
      'x-message': `must list at most ${MAX_VROOM_TASKS + MAX_VROOM_BREAKS + 2} steps`,
      items: vroomStepSchema(
        id('The job, shipment step or break (not for start and end)'),
        seconds('The service starts exactly then (a hard rule, as in VROOM).'),
        seconds('The service starts at or after this time.'),
        seconds('The service starts at or before this time.'),
      ),
      description:
        "The vehicle's route as given (VROOM plan mode): only with `options.c: true`, which times every route as given and reports its violations; without it a non-empty list answers 400 (it is not used as a starting solution).",
    },
  },
  required: ['id'],
  additionalProperties: false,
} as const;

/** One profile's matrices: VROOM's `durations` and `distances`, the shapes (and limits) of this service's own matrix. */
export const vroomProfileMatricesSchema = {
  title: 'VroomProfileMatrices',
  description:
    'Travel times (seconds) and, optionally, distances (metres) between the rows; square, row i column j = from row i to row j.',
  type: 'object',
  properties: {
    durations: matrixSchema.properties.durations,
    distances: matrixSchema.properties.distances,
    costs: {
      ...matrixSchema.properties.distances,
      description:
        'Optional: the cost of each leg (0 to 100 000 000), the same size as durations; the routes then minimise their sum, and `cost` in the answer adds it up. Not with per_hour or per_km costs.',
      examples: [
        [
          [0, 10, 14],
          [11, 0, 6],
          [15, 6, 0],
        ],
      ],
    },
  },
  required: ['durations'],
  additionalProperties: false,
} as const;

export const vroomOptionsSchema = {
  title: 'VroomOptions',
  description: "VROOM's options as vroom-express and openrouteservice take them: `g` and `c`.",
  type: 'object',
  properties: {
    g: {
      type: 'boolean',
      description:
        "Also answer each route's `geometry` (encoded polyline, precision 5) and its distances. Default false.",
    },
    c: {
      type: 'boolean',
      description:
        "Plan mode (VROOM's `-c`): no optimisation; every vehicle's `steps` is its route, timed as early as each step allows, with VROOM's `violations` reported. Default false.",
    },
  },
  additionalProperties: false,
} as const;

const MATRICES_DESCRIPTION =
  'Your own matrices, under the vehicles\' profile (`{"car": {"durations": [[…]]}}`): then every location is given by its `*_index` row (coordinates optional, echoed) and no routing engine is asked.';

export const vroomRequestSchema = {
  title: 'VroomRequest',
  description: `VROOM's input: 1 to ${MAX_VROOM_VEHICLES} vehicles and 1 to ${MAX_VROOM_TASKS} tasks (a job is one, a shipment two).`,
  type: 'object',
  properties: {
    jobs: { type: 'array', maxItems: MAX_VROOM_TASKS, items: vroomJobSchema, description: 'Places to visit.' },
    shipments: {
      type: 'array',
      maxItems: MAX_VROOM_TASKS / 2,
      items: vroomShipmentSchema,
      description: 'Pickup and delivery pairs.',
    },
    vehicles: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_VROOM_VEHICLES,
      items: vroomVehicleSchema,
      'x-message': `must list 1 to ${MAX_VROOM_VEHICLES} vehicles`,
      description: `1 to ${MAX_VROOM_VEHICLES} vehicles.`,
    },
    matrices: {
      type: 'object',
      minProperties: 1,
      maxProperties: 1,
      propertyNames: { maxLength: 100 },
      additionalProperties: vroomProfileMatricesSchema,
      'x-message': 'must hold the matrices of exactly one profile, the vehicles\' (e.g. {"car": {"durations": …}})',
      description: MATRICES_DESCRIPTION,
    },
    options: vroomOptionsSchema,
  },
  required: ['vehicles'],
  additionalProperties: false,
} as const;

export type VroomRequest = FromSchema<typeof vroomRequestSchema>;
export type VroomJob = FromSchema<typeof vroomJobSchema>;
export type VroomShipment = FromSchema<typeof vroomShipmentSchema>;
export type VroomShipmentStep = FromSchema<typeof vroomShipmentStepSchema>;
export type VroomVehicle = FromSchema<typeof vroomVehicleSchema>;
export type VroomProfileMatrices = FromSchema<typeof vroomProfileMatricesSchema>;

/**
 * The schema the body limit is counted from (src/http/body-size.ts counts closed objects only): the request with
 * `matrices` holding one profile of the longest name, which is all a valid request may hold.
 */
export const vroomBodySizeSchema = {
  ...vroomRequestSchema,
  properties: {
    ...vroomRequestSchema.properties,
    matrices: {
      type: 'object',
      properties: { ['p'.repeat(100)]: vroomProfileMatricesSchema },
      additionalProperties: false,
    },
  },
} as const;

/** VROOM's status codes: 0 is success, the others go with `error`, the message. */
export const VROOM_CODES = { internal: 1, input: 2, routing: 3 } as const;
export type VroomErrorCode = (typeof VROOM_CODES)[keyof typeof VROOM_CODES];

/** 2 (input) for every 4xx, 3 when the routing engine failed (the body says so), 1 (internal) for any other 5xx. */
export function vroomCodeOf(status: number, body: Record<string, unknown>): VroomErrorCode {
  if (body.code === VROOM_CODES.routing) return VROOM_CODES.routing;
  return status < 500 ? VROOM_CODES.input : VROOM_CODES.internal;
}

/**
 * The service's Error body `{error, message, ...extra}` in VROOM's form: `{code, error: message, errorCode: error,
 * ...extra}` (the endpoint's errors, and the OpenAPI document's examples of them).
 */
export function vroomErrorBody(status: number, body: Record<string, unknown>): Record<string, unknown> {
  const { error, message, code: _, ...extra } = body;
  return { code: vroomCodeOf(status, body), error: message, errorCode: error, ...extra };
}
