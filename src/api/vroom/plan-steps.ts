/**
 * VROOM's plan mode (`options.c: true`, vroom-express's form of `-c`): every vehicle's `steps` is its route as
 * given. This file holds the step's shape (built from schema.ts's parts, so that this file does not import it) and
 * resolves the steps of a request: each id to its task (a job, a shipment's pickup or delivery) or to one of the
 * vehicle's breaks, each as a 400 naming the step when it cannot be. Without `options.c`, non-empty steps answer
 * 400: they are not taken as a starting solution.
 */
import { invalidRequest } from '../../errors.js';
import type { VroomTask } from './call.js';

export const vroomStepSchema = <const I, const S>(id: I, at: S, after: S, before: S) =>
  ({
    title: 'VroomVehicleStep',
    description:
      "One step of the vehicle's route as given, in order (plan mode, `options.c: true`): `start`, `end`, or a task or break by its `id`.",
    type: 'object',
    properties: {
      type: {
        type: 'string',
        enum: ['start', 'job', 'pickup', 'delivery', 'break', 'end'],
        maxLength: 8,
        'x-message': 'must be one of start, job, pickup, delivery, break, end',
        description: 'A job, a shipment pickup or delivery (by its id in the shipment), or a break of this vehicle.',
      },
      id,
      service_at: at,
      service_after: after,
      service_before: before,
    },
    required: ['type'],
    additionalProperties: false,
  }) as const;

/** The bounds a step puts on its service start (hard in VROOM; reported as violations here when they cannot hold). */
export interface StepBounds {
  at?: number;
  after?: number;
  before?: number;
}

export type PlanStep = StepBounds &
  ({ kind: 'start' } | { kind: 'end' } | { kind: 'task'; task: number } | { kind: 'break'; index: number });

/** A vehicle's steps as the request gives them (the schema's shape). */
interface GivenStep {
  type: 'start' | 'job' | 'pickup' | 'delivery' | 'break' | 'end';
  id?: number;
  service_at?: number;
  service_after?: number;
  service_before?: number;
}

interface GivenVehicle {
  id: number;
  steps?: readonly GivenStep[];
  breaks?: ReadonlyArray<{ id: number }>;
  start?: unknown;
  start_index?: number;
  end?: unknown;
  end_index?: number;
}

/**
 * Each vehicle's route in plan mode, or undefined when the call is not in plan mode (then every `steps` must be
 * empty). A vehicle with `steps: []` has an empty route; a vehicle without `steps` is a 400.
 */
export function planRoutes(
  vehicles: readonly GivenVehicle[],
  tasks: readonly VroomTask[],
  planMode: boolean,
): PlanStep[][] | undefined {
  if (!planMode) {
    const k = vehicles.findIndex((v) => (v.steps?.length ?? 0) > 0);
    if (k >= 0)
      throw invalidRequest(
        `vehicles[${k}].steps: a vehicle's steps are read only in plan mode: add "options": {"c": true} to time the routes as given and report their violations, or leave steps out and the service plans every route (steps are not used as a starting solution)`,
        `vehicles[${k}].steps`,
      );
    return undefined;
  }
  const taskOf = new Map(tasks.map((t, i) => [`${t.type} ${t.id}`, i]));
  const usedBy = new Map<number, string>();
  return vehicles.map((v, k) => {
    if (!v.steps)
      throw invalidRequest(
        `vehicles[${k}].steps is missing: in plan mode ("options": {"c": true}) every vehicle's route is its steps; send "steps": [] for a vehicle left unused`,
        `vehicles[${k}].steps`,
      );
    return v.steps.map((s, n) => {
      const path = `vehicles[${k}].steps[${n}]`;
      const bounds: StepBounds = {
        ...(s.service_at !== undefined ? { at: s.service_at } : {}),
        ...(s.service_after !== undefined ? { after: s.service_after } : {}),
        ...(s.service_before !== undefined ? { before: s.service_before } : {}),
      };
      if (s.type === 'start' || s.type === 'end') {
        const last = v.steps!.length - 1;
        const has =
          s.type === 'start'
            ? v.start !== undefined || v.start_index !== undefined
            : v.end !== undefined || v.end_index !== undefined;
        if ((s.type === 'start' && n !== 0) || (s.type === 'end' && n !== last) || !has)
          throw invalidRequest(
            `${path}: a ${s.type} step must be the ${s.type === 'start' ? 'first' : 'last'} step, of a vehicle with a ${s.type}; move it or leave it out`,
            path,
          );
        return { kind: s.type, ...bounds };
      }
      if (s.id === undefined)
        throw invalidRequest(`${path}.id is missing: a ${s.type} step names its ${s.type} by id`, `${path}.id`);
      if (s.type === 'break') {
        const index = v.breaks?.findIndex((b) => b.id === s.id) ?? -1;
        if (index < 0)
          throw invalidRequest(
            `${path}.id: vehicle ${v.id} has no break ${s.id}; name one of its breaks`,
            `${path}.id`,
          );
        if (v.steps!.findIndex((t) => t.type === 'break' && t.id === s.id) !== n)
          throw invalidRequest(
            `${path}: break ${s.id} is already in vehicle ${v.id}'s steps; a break is taken once`,
            path,
          );
        return { kind: 'break', index, ...bounds };
      }
      const task = taskOf.get(`${s.type} ${s.id}`);
      if (task === undefined)
        throw invalidRequest(
          `${path}.id: there is no ${s.type} with id ${s.id}${s.type === 'job' ? '' : ' among the shipments'}; name one the request gives`,
          `${path}.id`,
        );
      const earlier = usedBy.get(task);
      if (earlier !== undefined)
        throw invalidRequest(
          `${path}: ${s.type} ${s.id} is already in ${earlier}; a task is served once: keep it in one vehicle's steps`,
          path,
        );
      usedBy.set(task, path);
      return { kind: 'task', task, ...bounds };
    });
  });
}
