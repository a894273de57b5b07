/**
 * POST /api/v1/plans in the OpenAPI document: its request parts (the same
 * schema objects that validate requests), its response, and the path item,
 * whose error answers are optimize's (PAID_CALL_ERRORS).
 */
import { ACCEPTED_RESPONSE, PREFER_PARAMETER } from './jobs.js';
import {
  breakSchema,
  planRequestSchema,
  shipmentEndSchema,
  shipmentSchema,
  planStopSchema,
  planStopWithAddressSchema,
  planStopWithCoordinatesSchema,
  shiftSchema,
  timeWindowSchema,
  vehicleSchema,
} from '../plans/schema.js';
import { REASONS as UNASSIGNED_REASONS } from '../../solver/fleet-abi.js';
import { PLAN_REQUEST_EXAMPLES, PLAN_RESPONSE_EXAMPLES } from './plan-examples.js';
import { PAID_CALL_ERRORS, headers, json, ref } from './parts.js';
import {
  annotate,
  billingFields,
  dateTime,
  lateStop,
  nullable,
  routeGeometryFields,
  routeWarning,
  waypoint,
} from './route-parts.js';

/** The solver's reason codes, in code order. */
const REASONS = Object.values(UNASSIGNED_REASONS);

const planScheduleEntry = {
  type: 'object',
  properties: { colisId: { type: 'string' }, arrivee: dateTime, serviceStart: dateTime },
  required: ['colisId', 'arrivee'],
};
const planStep = {
  type: 'object',
  properties: {
    type: {
      type: 'string',
      enum: ['start', 'stop', 'pickup', 'delivery', 'break', 'end'],
      description:
        'A break is a vehicle break (id: its id; arrival: its start, departure: its end; distanceM and durationS 0; load unchanged).',
    },
    id: { type: 'string' },
    arrival: dateTime,
    serviceStart: dateTime,
    departure: dateTime,
    load: { type: 'array', items: { type: 'integer', minimum: 0 } },
    distanceM: { type: 'integer', minimum: 0 },
    durationS: { type: 'integer', minimum: 0 },
  },
  required: ['type', 'id', 'arrival', 'departure', 'load', 'distanceM', 'durationS'],
};
const planRoute = {
  type: 'object',
  properties: {
    steps: { type: 'array', items: planStep },
    vehicleId: { type: 'string' },
    order: { type: 'array', items: { type: 'string' } },
    waypoints: { type: 'array', items: waypoint },
    schedule: { type: 'array', items: planScheduleEntry },
    departAt: dateTime,
    returnAt: nullable(dateTime),
    lateStops: nullable({ type: 'array', items: lateStop }),
    totalDistanceKm: { type: 'number' },
    estimatedTimeMin: { type: 'number' },
    load: { type: 'array', items: { type: 'integer', minimum: 0 } },
    cost: { type: 'number', minimum: 0 },
    ...routeGeometryFields,
  },
  required: [
    'vehicleId',
    'order',
    'waypoints',
    'schedule',
    'departAt',
    'returnAt',
    'lateStops',
    'totalDistanceKm',
    'estimatedTimeMin',
    'load',
    'steps',
  ],
};
const unassignedStop = {
  type: 'object',
  properties: { id: { type: 'string' }, reason: { type: 'string', enum: REASONS }, message: { type: 'string' } },
  required: ['id', 'reason', 'message'],
};
const planTotals = {
  type: 'object',
  properties: {
    stops: { type: 'integer', minimum: 0 },
    assigned: { type: 'integer', minimum: 0 },
    unassigned: { type: 'integer', minimum: 0 },
    vehiclesUsed: { type: 'integer', minimum: 0 },
    totalDistanceKm: { type: 'number' },
    estimatedTimeMin: { type: 'number' },
    lateStops: { type: 'integer', minimum: 0 },
    cost: { type: 'number', minimum: 0 },
  },
  required: ['stops', 'assigned', 'unassigned', 'vehiclesUsed', 'totalDistanceKm', 'estimatedTimeMin', 'lateStops'],
};
const planResponse = {
  type: 'object',
  properties: {
    routes: { type: 'array', items: planRoute },
    unassigned: { type: 'array', items: unassignedStop },
    totals: planTotals,
    warnings: {
      type: 'array',
      items: routeWarning,
      minItems: 1,
      description:
        'Present only when some location was geocoded coarser than street level, one entry per such location.',
    },
    ...billingFields,
  },
  required: ['routes', 'unassigned', 'totals', 'stopsCharged'],
};

annotate(
  planScheduleEntry,
  'PlanScheduleEntry',
  'Estimated arrival at one stop, and the start of its service when the vehicle waits for its notBefore.',
  {
    colisId: 'The stop id.',
    arrivee: 'Estimated arrival, UTC, whole seconds, `Z` suffix.',
    serviceStart:
      "Only when the vehicle arrives before the stop's notBefore and waits: the start of service (its notBefore), UTC.",
  },
);
annotate(planStep, 'PlanStep', "One step of a route's timeline.", {
  type: "start (the vehicle's start), stop, pickup and delivery (a shipment's two ends), end (its end point; on a route without one, the end of the last service).",
  id: 'The vehicle id for start and end, the stop id for a stop, the shipment id for a pickup or delivery.',
  arrival: 'Arrival, UTC with `Z` (the departure for start).',
  serviceStart: 'Only when service starts after the arrival (waiting for notBefore or a time window), UTC.',
  departure: 'Departure after service, UTC (the arrival for end).',
  load: "On board after the step, per capacity dimension: the start carries every stop's demand of the route, each stop takes its own off, a pickup puts its shipment's demand on and its delivery takes it off; empty without capacities.",
  distanceM: 'Metres of the leg arriving at this step (0 for start, and for end without an end point).',
  durationS: 'Seconds of driving on that leg.',
});
annotate(
  planRoute,
  'PlanRoute',
  "The route of one vehicle that is used: optimize's route fields, the vehicle and its load.",
  {
    vehicleId: 'The vehicle id.',
    order:
      "Stop ids in visiting order; a shipment's id appears twice, at its pickup and at its delivery (`steps` tells which).",
    waypoints: 'One entry per stop of this route (a shipment: its pickup and its delivery), in visiting order.',
    schedule:
      'Estimated arrival at each stop of this route (a shipment: its pickup and its delivery), in visiting order.',
    departAt: "Departure from the start: the later of departureTime and the vehicle's shift.start, UTC with `Z`.",
    returnAt: "Arrival at the vehicle's end point, UTC with `Z`; null when the vehicle has no end.",
    lateStops: 'Stops of this route arriving after their deadline, in visiting order; null when there are none.',
    totalDistanceKm: 'Start → stops → end (when given), in km, rounded half up to 2 decimals.',
    estimatedTimeMin:
      'From departAt to the arrival at the end (or the end of the last service), travel, service and waiting included, in minutes, 1 decimal.',
    load: 'Sum of the demands served (a shipment counted once), per capacity dimension; empty when no vehicle has a capacity.',
    cost: "Only when some vehicle of the call has `costs`: this route's cost, fixed + perHour × its hours (departAt to its return, waiting and breaks included) + perKm × its km (unrounded metres), rounded to 2 decimals; 0 for a vehicle without costs.",
    steps:
      "The route's full timeline: the start, each stop (a shipment's pickup and delivery), the end, with arrival, serviceStart (after a wait), departure, the load on board after the step and the incoming leg's metres and seconds.",
  },
);
annotate(
  unassignedStop,
  'UnassignedStop',
  'A stop (or a shipment, listed once) no vehicle could serve within the hard rules, and why.',
  {
    id: 'The stop id, or the shipment id (a shipment is left out whole: neither its pickup nor its delivery is planned).',
    reason:
      'capacity: its demand (or one more stop) fits no vehicle allowed to serve it; shift: no such vehicle can serve it after its notBefore and within its shift; ' +
      'allowedVehicles: no vehicle of the call may serve it; unreachable: no such vehicle can drive to it; ' +
      'timeWindows: every one of its time windows ends before any such vehicle can get there; ' +
      "routeLimit: it fits such a vehicle only beyond that vehicle's maxDurationMin, maxDrivingMin or maxDistanceKm; " +
      'priority: such a vehicle could serve it, but the plan gave its room to stops of higher priority.',
    message: 'The reason in words, with what would fix it.',
  },
);
annotate(planTotals, 'PlanTotals', 'The whole plan.', {
  stops: 'Stops sent (and charged), a shipment counting two.',
  assigned: 'Stops in a route, a shipment counting two.',
  unassigned: 'Stops left out, a shipment counting two (an entry of `unassigned` that is a shipment is two of them).',
  vehiclesUsed: 'Routes (vehicles with at least one stop).',
  totalDistanceKm: "Sum of the routes' distances, km, 2 decimals.",
  estimatedTimeMin: "Sum of the routes' times, minutes, 1 decimal.",
  lateStops: 'Late stops over all routes.',
  cost: "Only when some vehicle of the call has `costs`: the routes' costs summed (what the plan minimised after the stops served and the lateness).",
});
annotate(
  planResponse,
  'PlanResponse',
  'The plan and what the call cost: every stop sent is in exactly one route or in `unassigned`, and every stop sent is charged.',
  {
    routes: 'One per vehicle used, in the order of `vehicles` in the request.',
    unassigned: 'Stops left out, in request order (stops, then shipments), with their reason.',
    totals: 'Totals over the routes.',
  },
);

/** Named components of the plans endpoint. */
export const PLAN_SCHEMAS: Record<string, object> = {
  PlanRequest: planRequestSchema,
  Vehicle: vehicleSchema,
  Shift: shiftSchema,
  VehicleBreak: breakSchema,
  TimeWindow: timeWindowSchema,
  PlanStop: planStopSchema,
  PlanStopWithCoordinates: planStopWithCoordinatesSchema,
  PlanStopWithAddress: planStopWithAddressSchema,
  Shipment: shipmentSchema,
  ShipmentEnd: shipmentEndSchema,
  PlanResponse: planResponse,
  PlanRoute: planRoute,
  PlanScheduleEntry: planScheduleEntry,
  PlanStep: planStep,
  UnassignedStop: unassignedStop,
  PlanTotals: planTotals,
};

export const plansPath = {
  post: {
    tags: ['Optimization'],
    summary: 'Plan a day for several vehicles',
    description:
      'Assigns the stops to the vehicles and orders each route: most stops assigned first, then least total lateness, then fewest vehicles, then least total duration. ' +
      'Capacities, maxStops, allowedVehicles, notBefore, timeWindows and shifts are hard; deadlines are soft (late stops are reported, as optimize does). ' +
      'A shipment is picked up and delivered by the same vehicle, pickup first, its demand on board in between (the capacity holds at every point of a route), or left out whole. ' +
      'Same keys, billing and sandbox rules as optimize: live keys are debited one stop per stop sent and two per shipment, unassigned ones included; a failed call is never charged.',
    operationId: 'plan',
    security: [{ bearer: [] }],
    parameters: [ref('parameters', 'Idempotency-Key'), ref('parameters', 'X-Request-Id'), PREFER_PARAMETER],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/PlanRequest' }, examples: PLAN_REQUEST_EXAMPLES },
      },
    },
    responses: {
      200: json(
        'The plan. Test keys: RateLimit headers for the per-minute call window.',
        { $ref: '#/components/schemas/PlanResponse' },
        PLAN_RESPONSE_EXAMPLES,
        headers('Idempotent-Replayed', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'),
      ),
      ...ACCEPTED_RESPONSE,
      ...PAID_CALL_ERRORS,
    },
  },
};
