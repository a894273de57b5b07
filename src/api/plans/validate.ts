/**
 * A plan request: the schema, then what JSON Schema cannot say (ids unique, capacity and demand
 * dimensions that agree, allowedVehicles naming vehicles of the call, a shift that ends after it
 * starts, a stop whose notBefore is not after its deadline, time windows in order that leave a usable one). Each message names the field and the fix.
 */
import { invalidRequest } from '../../errors.js';
import { checkBreaks } from './breaks.js';
import { compileValidator, type MistakeRule } from '../../http/validate.js';
import { CALL_MISTAKES } from '../../calls/mistakes.js';
import { checkUniqueIds } from '../../calls/request-checks.js';
import {
  MAX_ASYNC_PLAN_STOPS,
  MAX_ASYNC_PLAN_VEHICLES,
  MAX_PLAN_STOPS,
  MAX_PLAN_VEHICLES,
  MAX_STOP_WINDOWS,
  planRequestSchema,
  planStopCount,
  type PlanRequest,
} from './schema.js';

/** Too few or too many vehicles or stops: the limits of a plan, and what to do past them. */
const planSize: MistakeRule = (failure) => {
  const field = failure.path[0];
  if (failure.path.length !== 1 || (field !== 'vehicles' && field !== 'stops') || !Array.isArray(failure.value))
    return undefined;
  const n = failure.value.length;
  const [min, max] = field === 'vehicles' ? [1, MAX_PLAN_VEHICLES] : [2, MAX_PLAN_STOPS];
  if (failure.keyword === 'minItems')
    return { message: `${failure.message}: a plan needs ${min} to ${max} ${field} (got ${n})` };
  if (failure.keyword === 'maxItems') {
    const most = field === 'vehicles' ? MAX_ASYNC_PLAN_VEHICLES : MAX_ASYNC_PLAN_STOPS;
    return {
      message: `${failure.message}: a plan takes at most ${most} ${field}, asynchronously (got ${n}); ${field === 'stops' ? 'split the day into several plans' : 'plan the fleet in groups'}`,
    };
  }
  return undefined;
};

/**
 * A failure inside a stop's timeWindows is told as it is (the shared rules would read the field as a misspelt
 * deadline); a time in another form gets its HH:MM spelling.
 */
const timeWindowsFailure: MistakeRule = (failure) => {
  const inShipment = failure.path[0] === 'shipments' && failure.path[3] === 'timeWindows';
  if (!inShipment && (failure.path[0] !== 'stops' || failure.path[2] !== 'timeWindows')) return undefined;
  const clock = typeof failure.value === 'string' ? /^\s*(\d{1,2})\s*[:hH.]\s*(\d{2})\s*$/.exec(failure.value) : null;
  if (failure.keyword === 'pattern' && clock && Number(clock[1]) < 24 && Number(clock[2]) < 60)
    return { message: `${failure.message}: write "${clock[1]!.padStart(2, '0')}:${clock[2]}"` };
  if ((failure.keyword === 'minItems' || failure.keyword === 'maxItems') && Array.isArray(failure.value)) {
    return {
      message: `${failure.path
        .slice(0, inShipment ? 3 : 2)
        .join('.')
        .replace(
          /\.(\d+)/,
          '[$1]',
        )}.timeWindows must list 1 to ${MAX_STOP_WINDOWS} windows {"start": "HH:MM", "end": "HH:MM"} (got ${failure.value.length}); leave the field out when the stop has none`,
    };
  }
  if (failure.keyword === 'pattern' || failure.keyword === 'type')
    return { message: `${failure.message}, e.g. {"start": "09:00", "end": "12:00"}` };
  return { message: failure.message };
};

/** A shipment's own fields written on one of its ends: where they belong. */
const shipmentFieldOnAnEnd: MistakeRule = (failure) => {
  const [field, k, end, name] = failure.path;
  if (field !== 'shipments' || (end !== 'pickup' && end !== 'delivery') || failure.path.length !== 4) return undefined;
  if (
    failure.keyword !== 'additionalProperties' ||
    !['id', 'demand', 'allowedVehicles', 'priority'].includes(String(name))
  )
    return undefined;
  return {
    message: `shipments[${String(k)}].${end} has an unknown property "${String(name)}": a shipment's id, demand, allowedVehicles and priority belong to the shipment itself (shipments[${String(k)}].${String(name)}), not to its pickup or delivery`,
  };
};

const validateShape = compileValidator<PlanRequest>(planRequestSchema, [
  planSize,
  timeWindowsFailure,
  shipmentFieldOnAnEnd,
  ...CALL_MISTAKES,
]);

/**
 * A plan within the asynchronous limits (the schema's: MAX_ASYNC_PLAN_STOPS, MAX_ASYNC_PLAN_VEHICLES); a
 * synchronous call also passes `checkSyncPlanSize` (validateSyncPlanRequest).
 */
export function validatePlanRequest(body: unknown): PlanRequest {
  const request = validateShape(body);
  checkStopCount(request);
  checkUniqueIds(request.vehicles, 'vehicles', 'vehicle');
  checkUniqueIds(request.stops, 'stops', 'stop');
  checkShipmentIds(request);
  checkShifts(request);
  checkBreaks(request.vehicles);
  checkDimensions(request);
  checkAllowedVehicles(request);
  checkWindows(request);
  return request;
}

/** A plan within the synchronous limits, for a service without asynchronous plans. */
export function validateSyncPlanRequest(body: unknown): PlanRequest {
  const request = validatePlanRequest(body);
  checkSyncPlanSize(request, false);
  return request;
}

/**
 * A synchronous plan has at most MAX_PLAN_STOPS stops (a shipment counting two) and MAX_PLAN_VEHICLES vehicles;
 * past them the message names the asynchronous call when the service takes it (`canAsync`).
 */
export function checkSyncPlanSize(request: PlanRequest, canAsync: boolean): void {
  const n = planStopCount(request);
  const shipments = request.shipments?.length ?? 0;
  const asynchronously = canAsync
    ? `, or send it asynchronously with the header "Prefer: respond-async" (up to ${MAX_ASYNC_PLAN_STOPS} stops and ${MAX_ASYNC_PLAN_VEHICLES} vehicles; 202, then the job)`
    : '';
  if (n > MAX_PLAN_STOPS) {
    const got =
      shipments > 0
        ? `${n}: ${request.stops.length} stops and ${shipments} shipments, a shipment counting two`
        : `${n}`;
    throw invalidRequest(
      `stops must have at most ${MAX_PLAN_STOPS} items: a plan takes at most ${MAX_PLAN_STOPS} stops (got ${got}); split the day into several plans${asynchronously}`,
      shipments > 0 ? 'shipments' : 'stops',
    );
  }
  if (request.vehicles.length > MAX_PLAN_VEHICLES)
    throw invalidRequest(
      `vehicles must have at most ${MAX_PLAN_VEHICLES} items: a plan takes at most ${MAX_PLAN_VEHICLES} vehicles (got ${request.vehicles.length}); plan the fleet in groups${asynchronously}`,
      'vehicles',
    );
}

/** 2 to MAX_ASYNC_PLAN_STOPS stops in all, a shipment counting two (as billing counts them). */
function checkStopCount(request: PlanRequest): void {
  const n = planStopCount(request);
  const shipments = request.shipments?.length ?? 0;
  const got =
    shipments > 0 ? `${n}: ${request.stops.length} stops and ${shipments} shipments, a shipment counting two` : `${n}`;
  if (n < 2)
    throw invalidRequest(
      `stops must have at least 2 items: a plan needs 2 to ${MAX_PLAN_STOPS} stops (got ${got})`,
      'stops',
    );
  if (n > MAX_ASYNC_PLAN_STOPS)
    throw invalidRequest(
      `stops must have at most ${MAX_ASYNC_PLAN_STOPS} items: a plan takes at most ${MAX_ASYNC_PLAN_STOPS} stops, asynchronously (got ${got}); split the day into several plans`,
      shipments > 0 ? 'shipments' : 'stops',
    );
}

/** A shipment's id differs from every stop's and every other shipment's (the answer names both by id). */
function checkShipmentIds(request: PlanRequest): void {
  const shipments = request.shipments ?? [];
  checkUniqueIds(shipments, 'shipments', 'stop and shipment');
  const stopAt = new Map(request.stops.map((s, i) => [s.id, i]));
  shipments.forEach((s, k) => {
    const i = stopAt.get(s.id);
    if (i !== undefined)
      throw invalidRequest(
        `shipments[${k}].id ${JSON.stringify(s.id)} repeats stops[${i}].id: stop and shipment ids must be unique within one call`,
        `shipments[${k}].id`,
      );
  });
}

function checkShifts(request: PlanRequest): void {
  request.vehicles.forEach((v, i) => {
    if (v.shift?.start !== undefined && v.shift.end !== undefined && v.shift.end <= v.shift.start) {
      throw invalidRequest(
        `vehicles[${i}].shift.end "${v.shift.end}" must be after shift.start "${v.shift.start}" (a shift lies within one Paris calendar day)`,
        `vehicles[${i}].shift.end`,
      );
    }
  });
}

function checkDimensions(request: PlanRequest): void {
  const withCapacity = request.vehicles
    .map((v, i) => ({ i, capacity: v.capacity }))
    .filter((v) => v.capacity !== undefined);
  const first = withCapacity[0];
  for (const v of withCapacity) {
    if (v.capacity!.length !== first!.capacity!.length) {
      throw invalidRequest(
        `vehicles[${v.i}].capacity has ${v.capacity!.length} dimensions but vehicles[${first!.i}].capacity has ${first!.capacity!.length}: ` +
          'every capacity lists the same dimensions in the same order (e.g. [kg, parcels])',
        `vehicles[${v.i}].capacity`,
      );
    }
  }
  const withDemand = [
    ...request.stops.map((stop, i) => ({ path: `stops[${i}]`, demand: stop.demand })),
    ...(request.shipments ?? []).map((s, k) => ({ path: `shipments[${k}]`, demand: s.demand })),
  ];
  for (const { path, demand } of withDemand) {
    if (demand === undefined) continue;
    if (!first) {
      throw invalidRequest(
        `${path}.demand needs vehicles with a capacity of the same length: give the vehicles a capacity (e.g. "capacity": [500, 40]) or remove the demand`,
        `${path}.demand`,
      );
    }
    if (demand.length !== first.capacity!.length) {
      throw invalidRequest(
        `${path}.demand has ${demand.length} dimensions but the vehicles' capacity has ${first.capacity!.length}: ` +
          'give one value per capacity dimension, in the same order',
        `${path}.demand`,
      );
    }
  }
}

function checkAllowedVehicles(request: PlanRequest): void {
  const ids = new Set(request.vehicles.map((v) => v.id));
  const lists = [
    ...request.stops.map((stop, i) => ({ path: `stops[${i}]`, allowed: stop.allowedVehicles })),
    ...(request.shipments ?? []).map((s, k) => ({ path: `shipments[${k}]`, allowed: s.allowedVehicles })),
  ];
  for (const { path, allowed } of lists) {
    allowed?.forEach((id, k) => {
      if (!ids.has(id)) {
        throw invalidRequest(
          `${path}.allowedVehicles[${k}] ${JSON.stringify(id)} is not the id of a vehicle of this call: use ids from vehicles[].id`,
          `${path}.allowedVehicles[${k}]`,
        );
      }
    });
  }
}

/** The time fields a stop and a shipment's ends share. */
interface Timed {
  notBefore?: string;
  deadline?: string;
  timeWindows?: ReadonlyArray<{ start: string; end: string }>;
}

function checkWindows(request: PlanRequest): void {
  const timed: Array<[string, Timed]> = [
    ...request.stops.map((stop, i): [string, Timed] => [`stops[${i}]`, stop]),
    ...(request.shipments ?? []).flatMap((s, k): Array<[string, Timed]> => [
      [`shipments[${k}].pickup`, s.pickup],
      [`shipments[${k}].delivery`, s.delivery],
    ]),
  ];
  for (const [path, stop] of timed) {
    checkTimeWindows(stop, path);
    if (stop.notBefore !== undefined && stop.deadline !== undefined && stop.notBefore > stop.deadline) {
      throw invalidRequest(
        `${path}.notBefore "${stop.notBefore}" is after its deadline "${stop.deadline}": the stop could never be served on time; ` +
          'move notBefore before the deadline or remove one of them',
        `${path}.notBefore`,
      );
    }
  }
}

/** Each window ends after it starts, they come in time order without touching, and notBefore and the deadline leave one usable. */
function checkTimeWindows(stop: Timed, path: string): void {
  const windows = stop.timeWindows;
  if (windows === undefined) return;
  windows.forEach((w, k) => {
    if (w.end <= w.start) {
      throw invalidRequest(
        `${path}.timeWindows[${k}].end "${w.end}" must be after its start "${w.start}" (a window lies within one Paris calendar day)`,
        `${path}.timeWindows[${k}].end`,
      );
    }
    const previous = windows[k - 1];
    if (previous !== undefined && w.start <= previous.end) {
      throw invalidRequest(
        `${path}.timeWindows[${k}] starts at "${w.start}", not after the previous window's end "${previous.end}": ` +
          'list the windows in time order, and merge windows that overlap or touch into one',
        `${path}.timeWindows[${k}].start`,
      );
    }
  });
  const last = windows[windows.length - 1]!;
  if (stop.notBefore !== undefined && stop.notBefore > last.end) {
    throw invalidRequest(
      `${path}.notBefore "${stop.notBefore}" is after the end of its last time window "${last.end}": the stop could never be served; ` +
        'move notBefore into a window or remove it',
      `${path}.notBefore`,
    );
  }
  if (stop.deadline !== undefined && stop.deadline < windows[0]!.start) {
    throw invalidRequest(
      `${path}.deadline "${stop.deadline}" is before its first time window starts "${windows[0]!.start}": the stop could never be served on time; ` +
        'move the deadline into a window or remove it',
      `${path}.deadline`,
    );
  }
}
