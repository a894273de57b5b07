/**
 * A plan request: the schema, then what JSON Schema cannot say (ids unique, capacity and demand
 * dimensions that agree, allowedVehicles naming vehicles of the call, a shift that ends after it
 * starts, a stop whose notBefore is not after its deadline). Each message names the field and the fix.
 */
import { invalidRequest } from '../../errors.js';
import { compileValidator, type MistakeRule } from '../../http/validate.js';
import { CALL_MISTAKES } from '../../calls/mistakes.js';
import { checkUniqueIds } from '../../calls/request-checks.js';
import { MAX_PLAN_STOPS, MAX_PLAN_VEHICLES, planRequestSchema, type PlanRequest } from './schema.js';

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
    return {
      message: `${failure.message}: a plan takes at most ${max} ${field} (got ${n}); ${field === 'stops' ? 'split the day into several plans' : 'plan the fleet in groups'}`,
    };
  }
  return undefined;
};

const validateShape = compileValidator<PlanRequest>(planRequestSchema, [planSize, ...CALL_MISTAKES]);

export function validatePlanRequest(body: unknown): PlanRequest {
  const request = validateShape(body);
  checkUniqueIds(request.vehicles, 'vehicles', 'vehicle');
  checkUniqueIds(request.stops, 'stops', 'stop');
  checkShifts(request);
  checkDimensions(request);
  checkAllowedVehicles(request);
  checkWindows(request);
  return request;
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
  request.stops.forEach((stop, i) => {
    if (stop.demand === undefined) return;
    if (!first) {
      throw invalidRequest(
        `stops[${i}].demand needs vehicles with a capacity of the same length: give the vehicles a capacity (e.g. "capacity": [500, 40]) or remove the demand`,
        `stops[${i}].demand`,
      );
    }
    if (stop.demand.length !== first.capacity!.length) {
      throw invalidRequest(
        `stops[${i}].demand has ${stop.demand.length} dimensions but the vehicles' capacity has ${first.capacity!.length}: ` +
          'give one value per capacity dimension, in the same order',
        `stops[${i}].demand`,
      );
    }
  });
}

function checkAllowedVehicles(request: PlanRequest): void {
  const ids = new Set(request.vehicles.map((v) => v.id));
  request.stops.forEach((stop, i) => {
    stop.allowedVehicles?.forEach((id, k) => {
      if (!ids.has(id)) {
        throw invalidRequest(
          `stops[${i}].allowedVehicles[${k}] ${JSON.stringify(id)} is not the id of a vehicle of this call: use ids from vehicles[].id`,
          `stops[${i}].allowedVehicles[${k}]`,
        );
      }
    });
  });
}

function checkWindows(request: PlanRequest): void {
  request.stops.forEach((stop, i) => {
    if (stop.notBefore !== undefined && stop.deadline !== undefined && stop.notBefore > stop.deadline) {
      throw invalidRequest(
        `stops[${i}].notBefore "${stop.notBefore}" is after its deadline "${stop.deadline}": the stop could never be served on time; ` +
          'move notBefore before the deadline or remove one of them',
        `stops[${i}].notBefore`,
      );
    }
  });
}
