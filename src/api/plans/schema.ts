/**
 * PlanRequest: several vehicles and up to 1000 stops in one call. Its Location
 * and Stop parts are the schema objects every paid call takes (spread, never
 * copied: src/calls/location-schema.ts), so plans and optimize accept the same
 * points, addresses, deadlines and service times. Types come from the schema
 * through FromSchema, as in optimize.
 */
import type { FromSchema } from 'json-schema-to-ts';
import {
  timeOfDaySchema,
  callOptionsProperties,
  eitherShape,
  locationJsonSchema,
  stopWithAddressSchema,
  stopWithCoordinatesSchema,
} from '../../calls/location-schema.js';
import { MAX_DIMS } from '../../solver/abi-constants.generated.js';
import { vehicleBreaksProperty } from './breaks.js';
import { balanceSchema, vehicleCostsSchema } from './costs.js';

export { breakSchema } from './breaks.js';

/** Most stops and vehicles of a synchronous plan (validate.ts checkSyncPlanSize). */
export const MAX_PLAN_STOPS = 1000;
export const MAX_PLAN_VEHICLES = 50;
/** Most stops and vehicles of an asynchronous plan (`Prefer: respond-async`): the schema's limits. */
export const MAX_ASYNC_PLAN_STOPS = 10_000;
export const MAX_ASYNC_PLAN_VEHICLES = 500;
/** Most shipments of one call (each is two stops: MAX_ASYNC_PLAN_STOPS / 2). */
export const MAX_PLAN_SHIPMENTS = MAX_ASYNC_PLAN_STOPS / 2;
/** Most time windows of one stop. */
export const MAX_STOP_WINDOWS = 5;
/** The solver's limit (solver-rs/src/abi.rs). */
export const MAX_DIMENSIONS = MAX_DIMS;
const MAX_QUANTITY = 1_000_000_000;

const quantities = (description: string, example: readonly number[]) =>
  ({
    type: 'array',
    minItems: 1,
    maxItems: MAX_DIMENSIONS,
    items: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_QUANTITY,
      'x-message': `must be a whole number from 0 to ${MAX_QUANTITY}`,
    },
    description,
    examples: [example],
  }) as const;

const vehicleId = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description: 'Caller-chosen vehicle id, unique within one call (1 to 100 characters).',
  examples: ['van-1'],
} as const;

/** The longest solve an asynchronous plan may ask for (timeLimitSeconds). */
export const MAX_JOB_TIME_LIMIT_SECONDS = 600;

export const shiftSchema = {
  title: 'Shift',
  description:
    'Working hours of a vehicle, Europe/Paris local time on the Paris calendar day of departure. Either bound may be omitted.',
  type: 'object',
  properties: {
    start: timeOfDaySchema(
      'Earliest departure from the start: the vehicle leaves at the later of departureTime and this time.',
      '08:00',
    ),
    end: timeOfDaySchema(
      'Latest arrival at the end point (or end of the last service when the route has no end). Hard: a stop that cannot be served within the shift is left unassigned.',
      '17:30',
    ),
  },
  additionalProperties: false,
} as const;

export const vehicleSchema = {
  title: 'Vehicle',
  description:
    'One vehicle of the fleet: where it starts and ends, its shift, what it can carry and how many stops it may make.',
  type: 'object',
  properties: {
    id: vehicleId,
    start: locationJsonSchema,
    end: locationJsonSchema,
    shift: shiftSchema,
    capacity: quantities(
      'What the vehicle can carry, one whole number per dimension (e.g. [kg, parcels]); every vehicle that has one uses the same dimensions. Absent: unlimited.',
      [500, 40],
    ),
    maxStops: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_ASYNC_PLAN_STOPS,
      'x-message': `must be a whole number from 1 to ${MAX_ASYNC_PLAN_STOPS}`,
      description: 'Most stops this vehicle may serve.',
      examples: [30],
    },
    maxDurationMin: {
      type: 'integer',
      minimum: 1,
      maximum: 1440,
      'x-message': 'must be a whole number of minutes from 1 to 1440',
      description:
        'Longest route in minutes, from its departure to its return (or the end of its last service when it has no end), waiting included. Hard: a stop that would make it longer goes to another vehicle or is unassigned (reason routeLimit).',
      examples: [240],
    },
    maxDrivingMin: {
      type: 'integer',
      minimum: 1,
      maximum: 1440,
      'x-message': 'must be a whole number of minutes from 1 to 1440',
      description:
        'Most minutes spent driving (the sum of the legs, start to end; service and waiting not counted). Hard.',
      examples: [180],
    },
    maxDistanceKm: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 10000,
      'x-message': 'must be a number of kilometres above 0 and at most 10000',
      description: 'Longest route in kilometres, start to end, over the same road distances as totalDistanceKm. Hard.',
      examples: [120],
    },
    ...vehicleBreaksProperty,
    costs: vehicleCostsSchema,
  },
  required: ['id', 'start'],
  additionalProperties: false,
} as const;

export const timeWindowSchema = {
  title: 'TimeWindow',
  description: 'A time window on the start of service, Europe/Paris local time on the Paris calendar day of departure.',
  type: 'object',
  properties: {
    start: timeOfDaySchema('Service starts at this time or later.', '09:00'),
    end: timeOfDaySchema('Service starts at this time or earlier (hard); after `start`.', '12:00'),
  },
  required: ['start', 'end'],
  additionalProperties: false,
} as const;

const planStopExtras = {
  priority: {
    type: 'integer',
    minimum: 0,
    maximum: 100,
    'x-message': 'must be a whole number from 0 to 100',
    description:
      'How much the stop matters when not every stop fits (default 0): the plan keeps the largest sum of the priorities of the stops it assigns first, then the most stops. A stop left out for stops of higher priority is unassigned with reason priority.',
    examples: [80],
  },
  notBefore: timeOfDaySchema(
    'Earliest start of service, HH:MM Europe/Paris on the Paris day of departure; a vehicle that arrives earlier waits. Hard.',
    '09:30',
  ),
  timeWindows: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_STOP_WINDOWS,
    items: timeWindowSchema,
    'x-message': `must list 1 to ${MAX_STOP_WINDOWS} windows {"start": "HH:MM", "end": "HH:MM"}`,
    description:
      `1 to ${MAX_STOP_WINDOWS} windows, in time order and not overlapping. Hard: service starts inside one of them; ` +
      'a vehicle that arrives between two windows waits for the next. With notBefore, service starts at notBefore or later as well ' +
      '(a window is cut at notBefore); a deadline stays soft (a start after it is reported late). A window that ends before the ' +
      'departure is dropped; a stop left without one is unassigned (reason timeWindows).',
    examples: [
      [
        { start: '09:00', end: '12:00' },
        { start: '14:00', end: '17:00' },
      ],
    ],
  },
  demand: quantities('What the stop takes from the vehicle, one whole number per capacity dimension.', [12, 1]),
  allowedVehicles: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_ASYNC_PLAN_VEHICLES,
    uniqueItems: true,
    items: vehicleId,
    'x-message': `must list 1 to ${MAX_PLAN_VEHICLES} vehicle ids, each once (up to ${MAX_ASYNC_PLAN_VEHICLES} in an asynchronous plan)`,
    description: 'Ids of the vehicles that may serve this stop. Absent: any vehicle.',
    examples: [['van-1']],
  },
} as const;

/** A Stop shape (closed object) with the plan's fields added. */
const withPlanExtras = <const S extends { properties: object }, const T extends string>(
  stop: S,
  title: T,
  description: string,
) =>
  ({
    ...stop,
    title,
    description,
    properties: { ...stop.properties, ...planStopExtras },
  }) as const;

export const planStopWithCoordinatesSchema = withPlanExtras(
  stopWithCoordinatesSchema,
  'PlanStopWithCoordinates',
  'A stop given by its coordinates, with its optional time window, demand and allowed vehicles.',
);
export const planStopWithAddressSchema = withPlanExtras(
  stopWithAddressSchema,
  'PlanStopWithAddress',
  'A stop given by its street address (live keys only), with its optional time window, demand and allowed vehicles.',
);

export const planStopSchema = eitherShape(
  'PlanStop',
  'An optimize Stop (coordinates or address, id, deadline, serviceSeconds) plus notBefore, demand and allowedVehicles.',
  planStopWithCoordinatesSchema,
  planStopWithAddressSchema,
);

/** A shipment's pickup or delivery: a stop's place and times, without its own id, demand or priority. */
const shipmentEndTimes = {
  deadline: stopWithCoordinatesSchema.properties.deadline,
  serviceSeconds: stopWithCoordinatesSchema.properties.serviceSeconds,
  notBefore: planStopExtras.notBefore,
  timeWindows: planStopExtras.timeWindows,
} as const;
const { latitude, longitude } = stopWithCoordinatesSchema.properties;
const { street, postalCode, city } = stopWithAddressSchema.properties;

export const shipmentEndSchema = eitherShape(
  'ShipmentEnd',
  "A shipment's pickup or delivery: a place (coordinates or address) with its optional serviceSeconds, deadline, notBefore and timeWindows, as a plan stop's.",
  {
    title: 'ShipmentEndWithCoordinates',
    description: 'A pickup or delivery given by its coordinates, with its optional service time and time limits.',
    type: 'object',
    properties: { latitude, longitude, ...shipmentEndTimes },
    required: ['latitude', 'longitude'],
    additionalProperties: false,
  },
  {
    title: 'ShipmentEndWithAddress',
    description:
      'A pickup or delivery given by its street address (live keys only), with its optional service time and time limits.',
    type: 'object',
    properties: { street, postalCode, city, ...shipmentEndTimes },
    required: ['street', 'postalCode', 'city'],
    additionalProperties: false,
  },
);

export const shipmentSchema = {
  title: 'Shipment',
  description:
    'Goods picked up at one place and delivered to another by the same vehicle, pickup first: the load rises by `demand` at the pickup and falls by it at the delivery. Planned whole or unassigned whole; billed as two stops.',
  type: 'object',
  properties: {
    id: {
      ...stopWithCoordinatesSchema.properties.id,
      description: 'Caller-chosen id, unique within one call among stops and shipments (at most 100 characters).',
      examples: ['return-7'],
    },
    pickup: shipmentEndSchema,
    delivery: shipmentEndSchema,
    demand: quantities(
      'What the shipment takes of the vehicle from its pickup to its delivery, one whole number per capacity dimension.',
      [30, 2],
    ),
    allowedVehicles: planStopExtras.allowedVehicles,
    priority: planStopExtras.priority,
  },
  required: ['id', 'pickup', 'delivery'],
  additionalProperties: false,
} as const;

export const planRequestSchema = {
  $id: 'PlanRequest',
  title: 'PlanRequest',
  description: `1 to ${MAX_PLAN_VEHICLES} vehicles and 2 to ${MAX_PLAN_STOPS} stops (a shipment counts two), planned together; asynchronously (\`Prefer: respond-async\`) up to ${MAX_ASYNC_PLAN_VEHICLES} vehicles and ${MAX_ASYNC_PLAN_STOPS} stops.`,
  type: 'object',
  properties: {
    vehicles: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ASYNC_PLAN_VEHICLES,
      items: vehicleSchema,
      description: `1 to ${MAX_PLAN_VEHICLES} vehicles (${MAX_ASYNC_PLAN_VEHICLES} asynchronously); their ids are unique within the call.`,
    },
    stops: {
      type: 'array',
      maxItems: MAX_ASYNC_PLAN_STOPS,
      items: planStopSchema,
      description: `Up to ${MAX_PLAN_STOPS} stops (${MAX_ASYNC_PLAN_STOPS} asynchronously); their ids are unique within the call. A plan has 2 to ${MAX_PLAN_STOPS} stops in all (${MAX_ASYNC_PLAN_STOPS} asynchronously), each shipment counting two.`,
    },
    shipments: {
      type: 'array',
      maxItems: MAX_PLAN_SHIPMENTS,
      items: shipmentSchema,
      description: `Pickups and deliveries, at most ${MAX_PLAN_SHIPMENTS}; each counts two stops (billing and the stop limits). Their ids are unique among the stops' and the shipments'.`,
    },
    ...callOptionsProperties,
    balance: balanceSchema,
    timeLimitSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_JOB_TIME_LIMIT_SECONDS,
      'x-message': `must be a whole number of seconds from 1 to ${MAX_JOB_TIME_LIMIT_SECONDS}`,
      description:
        'Asynchronous plans only (`Prefer: respond-async`): the solve budget in seconds. Absent: the synchronous budget rule (10 ms per stop, at least 200 ms, at most 10 s by default).',
      examples: [120],
    },
  },
  required: ['vehicles', 'stops'],
  additionalProperties: false,
  // the body limit (src/http/body-size.ts): stops and shipments share the plan's MAX_ASYNC_PLAN_STOPS
  'x-body-size': { shared: ['stops', 'shipments'] },
} as const;

export type PlanVehicle = FromSchema<typeof vehicleSchema>;
export type PlanStop = FromSchema<typeof planStopSchema>;
export type PlanRequest = FromSchema<typeof planRequestSchema>;
export type PlanShipment = FromSchema<typeof shipmentSchema>;

/** The stops a plan counts (billing, the stop limits, the budget): each stop one, each shipment two. */
export function planStopCount(request: PlanRequest): number {
  return request.stops.length + 2 * (request.shipments?.length ?? 0);
}
