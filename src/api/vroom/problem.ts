/**
 * From a VROOM call and its travel matrix to the fleet solver's problem, in VROOM's own time scale.
 *
 * Times: VROOM's times are integers in seconds on a scale of the caller's choosing (0 = the start of the planning
 * horizon, or UNIX timestamps); the solver takes them as they are (its times are 64-bit integers): a vehicle's
 * time_window is its shift (it leaves at its start, 0 without one; its end bounds its return, or the end of its
 * last service without an end), a task's time_windows are its hard windows. Answers are on the same scale. No
 * Europe/Paris rule applies: no departureTime, no deadline, no calendar day.
 *
 * Cost: VROOM's (src/api/vroom/costs.ts): `fixed` per vehicle used plus each leg's cost, no weight on waiting; by
 * default the travel time (`travel` as the objective's distance). Travel times are divided by the vehicles'
 * common speed_factor, rounded to the second.
 */
import type { TravelMatrix } from '../../geo/index.js';
import { wholeRowMajor } from '../../calls/steps.js';
import { DISTANCE_OBJECTIVE, type FleetJob, type FleetProblem, type FleetVehicle } from '../../solver/fleet-types.js';
import type { VroomCall, VroomTask } from './call.js';
import { legCosts } from './costs.js';
import type { VroomVehicle } from './schema.js';
import { fleetBreaks } from './breaks.js';

/** Capacity of a vehicle without one when the call has amounts: more than any call can carry (1000 tasks × 1e9). */
const UNLIMITED = 1e13;

/** The solver's problem; `placeOf[i]` is the matrix row of labelled location i. */
export function vroomProblem(call: VroomCall, placeOf: readonly number[], matrix: TravelMatrix): FleetProblem {
  const travel = wholeRowMajor(matrix.durationsS);
  if (call.speedFactor !== 1) {
    // VROOM keeps two decimals of the factor
    const factor = Math.round(call.speedFactor * 100) / 100;
    for (let i = 0; i < travel.length; i++) travel[i] = Math.round(travel[i]! / factor);
  }
  const size = matrix.durationsS.length;
  const opensAnywhere = call.vehicleStart.some((s) => s === undefined);
  // one fixed cost for all is the objective's vehicle cost (as before per-vehicle costs); different ones are the vehicles' own
  const uniform = call.costs.fixed.every((f) => f === call.costs.fixed[0]);
  const vehicles = call.vehicles.map((v, k) => ({
    ...vehicle(call, v, k, placeOf, size),
    ...(uniform ? {} : { costs: { fixed: call.costs.fixed[k]! } }),
  }));
  const jobs = call.stops.map((t, i) => job(call, t, placeOf[call.taskAt[i]!]!));
  const limitDistance = call.vehicles.some((v) => v.max_distance !== undefined)
    ? wholeRowMajor(matrix.distancesM)
    : undefined;
  const cost = legCosts(call, placeOf, travel, matrix.distancesM);
  // a vehicle without a start leaves from one more place, nothing away from any other: its route begins at its first task
  const widen = (cells: Int32Array): Int32Array => (opensAnywhere ? withNowhere(cells, size) : cells);
  return {
    locations: opensAnywhere ? size + 1 : size,
    travel: widen(travel),
    vehicles,
    jobs,
    objective: { ...DISTANCE_OBJECTIVE, vehicleCost: uniform ? call.costs.fixed[0]! : 0 },
    ...(cost ? { distance: widen(cost) } : {}),
    ...(limitDistance ? { limitDistance: widen(limitDistance) } : {}),
    ...(call.shipments.length > 0 ? { shipments: call.shipments } : {}),
  };
}

function vehicle(
  call: VroomCall,
  v: VroomVehicle,
  k: number,
  placeOf: readonly number[],
  nowhere: number,
): FleetVehicle {
  const end = call.vehicleEnd[k];
  const start = call.vehicleStart[k];
  return {
    // without a start: the place after the matrix's last (withNowhere)
    start: start === undefined ? nowhere : placeOf[start]!,
    ...(end !== undefined ? { end: placeOf[end]! } : {}),
    shiftStart: v.time_window?.[0] ?? 0,
    ...(v.time_window ? { shiftEnd: v.time_window[1]! } : {}),
    ...(call.dimensions > 0
      ? { capacity: v.capacity ? [...v.capacity] : new Array<number>(call.dimensions).fill(UNLIMITED) }
      : {}),
    ...(v.max_tasks !== undefined ? { maxStops: v.max_tasks } : {}),
    ...(v.max_travel_time !== undefined ? { maxDriving: v.max_travel_time } : {}),
    ...(v.max_distance !== undefined ? { maxDistance: v.max_distance } : {}),
    ...(v.breaks !== undefined && v.breaks.length > 0 ? { breaks: fleetBreaks(v.breaks) } : {}),
  };
}

/**
 * A task: a job's delivery is its demand (loaded at the start) and its pickup is carried to the end; a shipment's
 * pickup and delivery both have its amount as demand (loaded at one, unloaded at the other: FleetProblem.shipments).
 */
function job(call: VroomCall, t: VroomTask, location: number): FleetJob {
  const demand = t.type === 'pickup' ? t.pickup : t.delivery;
  const backhaul = t.type === 'job' && t.pickup.some((q) => q > 0) ? t.pickup : undefined;
  const allowed = allowedVehicles(call.vehicles, t.skills);
  return {
    location,
    // a setup is at a place of its own (setup.ts): always spent, right before the service
    service: t.setup + t.service,
    ...(t.windows ? { windows: t.windows } : {}),
    ...(call.dimensions > 0 && demand.some((q) => q > 0) ? { demand } : {}),
    ...(backhaul ? { pickup: backhaul } : {}),
    ...(allowed ? { allowedVehicles: allowed } : {}),
    ...(t.priority > 0 ? { priority: t.priority } : {}),
  };
}

/** VROOM's skills: a vehicle may serve a task when it holds every skill the task needs; undefined when all may. */
function allowedVehicles(vehicles: readonly VroomVehicle[], skills: readonly number[]): number[] | undefined {
  if (skills.length === 0) return undefined;
  const allowed = vehicles.flatMap((v, k) => (skills.every((s) => v.skills?.includes(s)) ? [k] : []));
  return allowed.length === vehicles.length ? undefined : allowed;
}

/** `cells` (size × size) with one more row and column of zeros: a place nothing away from any other. */
function withNowhere(cells: Int32Array, size: number): Int32Array {
  const out = new Int32Array((size + 1) * (size + 1));
  for (let i = 0; i < size; i++) out.set(cells.subarray(i * size, (i + 1) * size), i * (size + 1));
  return out;
}
