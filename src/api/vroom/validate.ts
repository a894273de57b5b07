/**
 * A VROOM request: the schema (an unsupported VROOM field is named by src/api/vroom/unsupported.ts), then what
 * JSON Schema cannot say, each as a 400 naming the field in VROOM's terms: unique ids, one profile, the matrices
 * of that profile (square, sizes that agree, every index in range), a location for everything (coordinates, or
 * an index with matrices), coordinates in range, amounts of one length, a setup only at a place of its own (src/api/vroom/setup.ts), windows that end after they
 * start, one speed_factor, distances for max_distance and coordinates for options.g. Then the request becomes
 * the call the service works on (src/api/vroom/call.ts).
 */
import { invalidRequest } from '../../errors.js';
import { compileValidator } from '../../http/validate.js';
import type { GivenMatrix } from '../../calls/given-matrix.js';
import type { Location } from '../../calls/location-schema.js';
import type { LabelledLocation } from '../../calls/locations.js';
import type { Point } from '../../geo/index.js';
import { labelOf, type TaskType, type VroomCall, type VroomTask } from './call.js';
import {
  MAX_VROOM_TASKS,
  vroomRequestSchema,
  type VroomJob,
  type VroomRequest,
  type VroomShipmentStep,
  type VroomVehicle,
} from './schema.js';
import { commonCosts } from './costs.js';
import { profileMatrices } from './matrices.js';
import { checkSetups } from './setup.js';
import { unsupportedVroomField } from './unsupported.js';
import { planRoutes } from './plan-steps.js';

const validateShape = compileValidator<VroomRequest>(vroomRequestSchema, [unsupportedVroomField]);

export const DEFAULT_PROFILE = 'car';

export function validateVroomRequest(body: unknown): VroomCall {
  const request = validateShape(body);
  const tasks = collectTasks(request);
  if (tasks.length === 0) throw invalidRequest('Send at least one job or shipment: there is nothing to plan.', 'jobs');
  if (tasks.length > MAX_VROOM_TASKS)
    throw invalidRequest(
      `This call has ${tasks.length} tasks (each job is one, each shipment two); at most ${MAX_VROOM_TASKS}: split it into several calls.`,
      'jobs',
    );
  checkUniqueIds(request);
  const profile = vehiclesProfile(request.vehicles);
  const matrices = profileMatrices(request, profile);
  const matrix = matrices?.matrix;
  const distancesKnown = !matrix || matrix.distances !== undefined;
  const costs = commonCosts(request.vehicles, { profile, costMatrix: matrices?.costs !== undefined, distancesKnown });
  const dimensions = checkAmounts(request);
  const speedFactor = commonSpeedFactor(request.vehicles);
  const call = layout(request, tasks, matrix);
  checkSetups(call, matrix !== undefined);
  request.vehicles.forEach((v, k) => {
    checkWindow(v.time_window, `vehicles[${k}].time_window`);
    if (v.max_distance !== undefined && matrix && !matrix.distances)
      throw invalidRequest(
        `vehicles[${k}].max_distance needs distances: send matrices.${profile}.distances (metres) beside durations, or leave max_distance out`,
        `vehicles[${k}].max_distance`,
      );
  });
  const drawRoutes = request.options?.g === true;
  const plan = planRoutes(request.vehicles, call.stops, request.options?.c === true);
  const blind = call.points.findIndex((p) => p === null);
  if (drawRoutes && blind >= 0)
    throw invalidRequest(
      `options.g draws each route through its places, but ${call.labelled[blind]!.label} has no coordinates: with matrices, give every task its location and every vehicle its start (and end) coordinates beside the indices, or leave options.g out`,
      'options.g',
    );
  return {
    ...call,
    vehicles: request.vehicles,
    ...(matrix ? { matrix } : {}),
    distancesKnown,
    costs,
    ...(matrices?.costs ? { costMatrix: matrices.costs } : {}),
    dimensions,
    speedFactor,
    drawRoutes,
    ...(plan ? { plan } : {}),
  };
}

/** The tasks in order: jobs, then each shipment's pickup and delivery; each checked on its own. */
function collectTasks(request: VroomRequest): VroomTask[] {
  const tasks: VroomTask[] = [];
  const zeros = (n: number) => new Array<number>(n).fill(0);
  const dims = firstAmountLength(request);
  (request.jobs ?? []).forEach((job, i) => {
    tasks.push(
      task('job', job, `jobs[${i}]`, job, { delivery: job.delivery ?? zeros(dims), pickup: job.pickup ?? zeros(dims) }),
    );
  });
  (request.shipments ?? []).forEach((s, i) => {
    const amount = s.amount ?? zeros(dims);
    tasks.push(task('pickup', s.pickup, `shipments[${i}].pickup`, s, { delivery: zeros(dims), pickup: amount }));
    tasks.push(task('delivery', s.delivery, `shipments[${i}].delivery`, s, { delivery: amount, pickup: zeros(dims) }));
  });
  return tasks;
}

function task(
  type: TaskType,
  step: VroomJob | VroomShipmentStep,
  path: string,
  shared: { skills?: readonly number[]; priority?: number },
  amounts: { delivery: readonly number[]; pickup: readonly number[] },
): VroomTask {
  if (step.location !== undefined) checkCoordinates(step.location, `${path}.location`);
  return {
    type,
    id: step.id,
    path,
    ...(step.description !== undefined ? { description: step.description } : {}),
    ...(step.location !== undefined ? { location: step.location } : {}),
    ...(step.location_index !== undefined ? { locationIndex: step.location_index } : {}),
    setup: step.setup ?? 0,
    service: step.service ?? 0,
    ...(step.time_windows !== undefined ? { windows: mergedWindows(step.time_windows, `${path}.time_windows`) } : {}),
    delivery: [...amounts.delivery],
    pickup: [...amounts.pickup],
    skills: shared.skills ?? [],
    priority: shared.priority ?? 0,
  };
}

function checkWindow(window: readonly number[] | undefined, path: string): void {
  if (window && window[0]! > window[1]!)
    throw invalidRequest(
      `${path} [${window.join(', ')}] ends before it starts: send [start, end] with start ≤ end`,
      path,
    );
}

/** Sorted by start, overlapping or touching windows merged (the same times allowed). */
function mergedWindows(windows: ReadonlyArray<readonly number[]>, path: string): Array<readonly [number, number]> {
  windows.forEach((w, i) => checkWindow(w, `${path}[${i}]`));
  const sorted = [...windows].map((w) => [w[0]!, w[1]!] as [number, number]).sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const w of sorted) {
    const last = merged[merged.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push(w);
  }
  return merged;
}

function checkCoordinates(location: readonly number[], path: string): void {
  const [lon, lat] = location as [number, number];
  if (lon < -180 || lon > 180)
    throw invalidRequest(
      `${path}[0] is ${lon}: a longitude from -180 to 180 (VROOM order is [lon, lat])`,
      `${path}[0]`,
    );
  if (lat < -90 || lat > 90)
    throw invalidRequest(
      `${path}[1] is ${lat}: a latitude from -90 to 90 (VROOM order is [lon, lat]; swapped?)`,
      `${path}[1]`,
    );
}

function checkUniqueIds(request: VroomRequest): void {
  const unique = (ids: number[], path: (i: number) => string, what: string) => {
    const first = new Map<number, number>();
    ids.forEach((id, i) => {
      const seen = first.get(id);
      if (seen !== undefined)
        throw invalidRequest(`${path(i)}.id ${id} repeats ${path(seen)}.id: ${what} ids are unique`, `${path(i)}.id`);
      first.set(id, i);
    });
  };
  unique(
    request.vehicles.map((v) => v.id),
    (i) => `vehicles[${i}]`,
    'vehicle',
  );
  unique(
    (request.jobs ?? []).map((j) => j.id),
    (i) => `jobs[${i}]`,
    'job',
  );
  const shipments = request.shipments ?? [];
  unique(
    shipments.map((s) => s.pickup.id),
    (i) => `shipments[${i}].pickup`,
    'pickup',
  );
  unique(
    shipments.map((s) => s.delivery.id),
    (i) => `shipments[${i}].delivery`,
    'delivery',
  );
}

function vehiclesProfile(vehicles: readonly VroomVehicle[]): string {
  const profile = vehicles[0]!.profile ?? DEFAULT_PROFILE;
  vehicles.forEach((v, k) => {
    if ((v.profile ?? DEFAULT_PROFILE) !== profile)
      throw invalidRequest(
        `vehicles[${k}].profile is ${JSON.stringify(v.profile ?? DEFAULT_PROFILE)} but vehicles[0]'s is ${JSON.stringify(profile)}: one call plans one profile; send one call per profile`,
        `vehicles[${k}].profile`,
      );
  });
  return profile;
}

/** The first amount's length; 0 without amounts. */
function firstAmountLength(request: VroomRequest): number {
  for (const [, value] of amounts(request)) return value.length;
  return 0;
}

function* amounts(request: VroomRequest): Generator<[string, readonly number[]]> {
  for (const [k, v] of request.vehicles.entries()) if (v.capacity) yield [`vehicles[${k}].capacity`, v.capacity];
  for (const [i, j] of (request.jobs ?? []).entries()) {
    if (j.delivery) yield [`jobs[${i}].delivery`, j.delivery];
    if (j.pickup) yield [`jobs[${i}].pickup`, j.pickup];
  }
  for (const [i, s] of (request.shipments ?? []).entries()) if (s.amount) yield [`shipments[${i}].amount`, s.amount];
}

/** Every capacity and amount has one length (VROOM's rule): the call's dimensions. */
function checkAmounts(request: VroomRequest): number {
  let first: [string, number] | undefined;
  for (const [path, value] of amounts(request)) {
    if (!first) first = [path, value.length];
    else if (value.length !== first[1])
      throw invalidRequest(
        `${path} has ${value.length} values but ${first[0]} has ${first[1]}: every capacity, delivery, pickup and amount of a call has the same dimensions`,
        path,
      );
  }
  return first?.[1] ?? 0;
}

function commonSpeedFactor(vehicles: readonly VroomVehicle[]): number {
  const factor = vehicles[0]!.speed_factor ?? 1;
  vehicles.forEach((v, k) => {
    if ((v.speed_factor ?? 1) !== factor)
      throw invalidRequest(
        `vehicles[${k}].speed_factor is ${v.speed_factor ?? 1} but vehicles[0]'s is ${factor}: the vehicles of one call share their travel times, so they have the same speed_factor; send one call per speed`,
        `vehicles[${k}].speed_factor`,
      );
  });
  return factor;
}

/** The labelled locations: each vehicle's start and end, then the tasks; by index with matrices, else by coordinates. */
function layout(
  request: VroomRequest,
  tasks: VroomTask[],
  matrix: GivenMatrix | undefined,
): Pick<VroomCall, 'labelled' | 'points' | 'vehicleStart' | 'vehicleEnd' | 'taskAt' | 'stops' | 'shipments'> {
  const rows = matrix?.durations.length ?? 0;
  const place = (path: string, coordinates: readonly number[] | undefined, index: number | undefined): Location => {
    const indexField = path.endsWith('.start') || path.endsWith('.end') ? `${path}_index` : `${path}.location_index`;
    const coordinatesField = path.endsWith('.start') || path.endsWith('.end') ? path : `${path}.location`;
    if (coordinates) checkCoordinates(coordinates, coordinatesField);
    if (matrix) {
      if (index === undefined)
        throw invalidRequest(`${indexField} is required with matrices: the row of this place in durations`, indexField);
      if (index >= rows)
        throw invalidRequest(
          `${indexField} is ${index} but durations has ${rows} rows: use a row from 0 to ${rows - 1}`,
          indexField,
        );
      return { index };
    }
    if (index !== undefined)
      throw invalidRequest(
        `${indexField} names a row of matrices, but the call has none: send matrices, or give ${coordinatesField} as [lon, lat] and leave the index out`,
        indexField,
      );
    if (!coordinates)
      throw invalidRequest(
        `${coordinatesField} is required: [lon, lat] (or send matrices and an index)`,
        coordinatesField,
      );
    return { latitude: coordinates[1]!, longitude: coordinates[0]! };
  };
  const labelled: LabelledLocation[] = [];
  const points: Array<Point | null> = [];
  const label = (entry: LabelledLocation, coordinates: readonly number[] | undefined): void => {
    labelled.push(entry);
    points.push(coordinates ? { latitude: coordinates[1]!, longitude: coordinates[0]! } : null);
  };
  const vehicleStart: Array<number | undefined> = [];
  const vehicleEnd: Array<number | undefined> = [];
  request.vehicles.forEach((v, k) => {
    const path = `vehicles[${k}]`;
    const vehicleId = String(v.id);
    const noEnd = v.end === undefined && v.end_index === undefined;
    if (v.start === undefined && v.start_index === undefined) {
      if (noEnd)
        throw invalidRequest(
          `${path} has neither a start nor an end: give it ${matrix ? 'start_index or end_index' : 'start or end as [lon, lat]'} (without a start the route begins at its first task, without an end it stops at its last)`,
          `${path}.start`,
        );
      vehicleStart.push(undefined);
    } else vehicleStart.push(labelled.length);
    if (vehicleStart[k] !== undefined)
      label(
        {
          label: labelOf(`${path}.start`, v.id),
          role: 'start',
          vehicleId,
          location: place(`${path}.start`, v.start, v.start_index),
        },
        v.start,
      );
    if (noEnd) {
      vehicleEnd.push(undefined);
      return;
    }
    vehicleEnd.push(labelled.length);
    label(
      {
        label: labelOf(`${path}.end`, v.id),
        role: 'end',
        vehicleId,
        location: place(`${path}.end`, v.end, v.end_index),
      },
      v.end,
    );
  });
  const taskAt = tasks.map((t) => {
    label(
      {
        label: labelOf(t.path, t.id),
        role: 'stop',
        stopId: `${t.type} ${t.id}`,
        location: place(t.path, t.location, t.locationIndex),
      },
      t.location,
    );
    return labelled.length - 1;
  });
  // each shipment's pickup is followed by its delivery (collectTasks)
  const shipments: Array<{ pickup: number; delivery: number }> = [];
  tasks.forEach((t, i) => {
    if (t.type === 'pickup') shipments.push({ pickup: i, delivery: i + 1 });
  });
  return {
    labelled,
    points,
    vehicleStart,
    vehicleEnd,
    taskAt,
    stops: tasks,
    shipments,
  };
}
