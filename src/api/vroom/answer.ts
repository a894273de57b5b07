/**
 * The solution in VROOM's output format (`code`, `summary`, `unassigned`, `routes[].steps`), on the request's own
 * time scale. Per step: `arrival`, `duration` (travel time so far), `distance` (metres so far, when distances are
 * known: no matrices, or matrices with distances), `waiting_time`, `setup`, `service`, `load` (after
 * the step, when the call has amounts) and `violations` (empty when solving: every constraint is hard, as in
 * VROOM's solving mode; filled in plan mode: src/api/vroom/plan.ts). `cost` is VROOM's (src/api/vroom/costs.ts): by default the travel time. Each vehicle leaves at the start of its
 * time window, or later by the wait its first task would have (the service starts stay the solver's), as
 * VROOM's routes leave as late as they can.
 */
import type { TravelMatrix } from '../../geo/index.js';
import type { FleetResult, FleetRoute, UnassignedReason } from '../../solver/fleet-types.js';
import type { TaskType, VroomCall, VroomTask } from './call.js';
import type { VroomVehicle } from './schema.js';

/** VROOM's violation causes (reported in plan mode only: src/api/vroom/plan.ts). */
export type ViolationCause =
  | 'delay'
  | 'lead_time'
  | 'load'
  | 'max_tasks'
  | 'skills'
  | 'precedence'
  | 'missing_break'
  | 'max_travel_time'
  | 'max_distance';

export interface VroomViolation {
  cause: ViolationCause;
  /** Seconds, for delay and lead_time. */
  duration?: number;
}

export interface VroomStep {
  type: 'start' | TaskType | 'break' | 'end';
  id?: number;
  description?: string;
  location?: number[];
  location_index?: number;
  setup: number;
  service: number;
  waiting_time: number;
  load?: number[];
  arrival: number;
  duration: number;
  distance?: number;
  violations: VroomViolation[];
}

interface Totals {
  cost: number;
  setup: number;
  service: number;
  duration: number;
  waiting_time: number;
  priority: number;
  violations: VroomViolation[];
  delivery?: number[];
  pickup?: number[];
  distance?: number;
}

export interface VroomRoute extends Totals {
  vehicle: number;
  description?: string;
  geometry?: string;
  steps: VroomStep[];
}

export interface VroomUnassigned {
  id: number;
  type: TaskType;
  description?: string;
  location?: number[];
  location_index?: number;
  /** Extension: why no vehicle serves it (the plans' reasons). */
  reason: UnassignedReason | 'unplanned';
}

export interface VroomAnswer {
  code: 0;
  summary: Totals & { routes: number; unassigned: number };
  unassigned: VroomUnassigned[];
  routes: VroomRoute[];
}

export interface VroomAnswerInput {
  call: VroomCall;
  solution: FleetResult;
  /** The place (matrix row) of each labelled location, and the metres between the places. */
  placeOf: readonly number[];
  distancesM: TravelMatrix['distancesM'];
  /** The cost of each leg between the places, as the solver took it (FleetProblem.distance); absent: the travel time. */
  legCosts?: Int32Array;
}

export function vroomAnswer(input: VroomAnswerInput): VroomAnswer {
  const { call, solution } = input;
  const routes = solution.routes.map((route) => routeOf(input, route));
  const unassigned = [...solution.unassigned]
    .sort((a, b) => a.job - b.job)
    .map(({ job, reason }) => ({ ...taskFields(call.stops[job]!), reason }));
  return answerOf(call, routes, unassigned);
}

/** The answer around its routes and unassigned tasks: the summary adds them up. */
export function answerOf(call: VroomCall, routes: VroomRoute[], unassigned: VroomUnassigned[]): VroomAnswer {
  const sum = (pick: (r: VroomRoute) => number) => routes.reduce((s, r) => s + pick(r), 0);
  const sumAmounts = (pick: (r: VroomRoute) => number[] | undefined) =>
    Array.from({ length: call.dimensions }, (_, d) => routes.reduce((s, r) => s + (pick(r)?.[d] ?? 0), 0));
  return {
    code: 0,
    summary: {
      cost: sum((r) => r.cost),
      routes: routes.length,
      unassigned: unassigned.length,
      setup: sum((r) => r.setup),
      service: sum((r) => r.service),
      duration: sum((r) => r.duration),
      waiting_time: sum((r) => r.waiting_time),
      priority: sum((r) => r.priority),
      violations: mergedViolations(routes.flatMap((r) => r.violations)),
      ...(call.dimensions > 0 ? { delivery: sumAmounts((r) => r.delivery), pickup: sumAmounts((r) => r.pickup) } : {}),
      ...(call.distancesKnown ? { distance: sum((r) => r.distance ?? 0) } : {}),
    },
    unassigned,
    routes,
  };
}

/** The fields of a vehicle's start or end step that do not depend on its times: type, place, no task time. */
export function vehicleStep(v: VroomVehicle, type: 'start' | 'end') {
  const location = type === 'start' ? v.start : v.end;
  const index = type === 'start' ? v.start_index : v.end_index;
  return {
    type,
    ...(location !== undefined ? { location: [...location] } : {}),
    ...(index !== undefined ? { location_index: index } : {}),
    setup: 0,
    service: 0,
  } as const;
}

/** One entry per cause, in order of first appearance; the durations (delay, lead_time) added up. */
export function mergedViolations(list: readonly VroomViolation[]): VroomViolation[] {
  const out = new Map<ViolationCause, VroomViolation>();
  for (const v of list) {
    const seen = out.get(v.cause);
    if (!seen) out.set(v.cause, { ...v });
    else if (v.duration !== undefined) seen.duration = (seen.duration ?? 0) + v.duration;
  }
  return [...out.values()];
}

/** id, type and what the request gave of description, location and location_index. */
export function taskFields(t: VroomTask): Omit<
  VroomStep,
  'setup' | 'service' | 'waiting_time' | 'arrival' | 'duration' | 'violations'
> & {
  id: number;
  type: TaskType;
} {
  return {
    id: t.id,
    type: t.type,
    ...(t.description !== undefined ? { description: t.description } : {}),
    ...(t.location !== undefined ? { location: [...t.location] } : {}),
    ...(t.locationIndex !== undefined ? { location_index: t.locationIndex } : {}),
  };
}

function routeOf(input: VroomAnswerInput, { vehicle, jobs, times }: FleetRoute): VroomRoute {
  const { call, placeOf, distancesM } = input;
  const v = call.vehicles[vehicle]!;
  const tasks = jobs.map((j) => call.stops[j]!);
  const dims = call.dimensions;
  const load = Array.from({ length: dims }, (_, d) =>
    tasks.reduce((s, t) => s + (t.type === 'job' ? t.delivery[d]! : 0), 0),
  );
  const loadField = () => (dims > 0 ? { load: [...load] } : {});
  const distanceField = (m: number) => (call.distancesKnown ? { distance: Math.round(m) } : {});
  const route = times!;
  const breaks = route.breaks ?? [];
  // leave later by the first task's wait: nothing after it moves (unless a break is taken there)
  const lateStart = breaks.some((b) => b.afterStops === 0) ? 0 : (route.stops[0]?.waitS ?? 0);
  const startAt = call.vehicleStart[vehicle];
  // a vehicle without a start has no start step: its route begins at its first task
  const steps: VroomStep[] = [];
  if (startAt !== undefined)
    steps.push({
      ...vehicleStep(v, 'start'),
      waiting_time: 0,
      ...loadField(),
      arrival: route.departureS + lateStart,
      duration: 0,
      ...distanceField(0),
      violations: [],
    });
  let travel = 0;
  let metres = 0;
  let cost = 0;
  // the solver's matrices may have one more place, where the vehicles without a start leave from
  const size = input.legCosts ? Math.round(Math.sqrt(input.legCosts.length)) : distancesM.length;
  const legCost = (from: number, to: number, travelS: number) => input.legCosts?.[from * size + to] ?? travelS;
  let leftAt = route.departureS;
  // undefined: nowhere yet (no start), nothing away from the first task
  let from: number | undefined = startAt === undefined ? undefined : placeOf[startAt]!;
  let nextBreak = 0;
  /**
   * The breaks taken before task k (or the end; `legOnly`: those before the leg only): returns when the vehicle is
   * free at what follows.
   */
  const breaksBefore = (k: number, arrivalS: number, legOnly = false): number => {
    let idle = arrivalS;
    for (; nextBreak < breaks.length && breaks[nextBreak]!.afterStops === k; nextBreak++) {
      const b = breaks[nextBreak]!;
      const given = v.breaks![b.index]!;
      const beforeLeg = b.startS < b.nextArrivalS;
      if (legOnly && !beforeLeg) break;
      steps.push({
        type: 'break',
        id: given.id,
        ...(given.description !== undefined ? { description: given.description } : {}),
        setup: 0,
        service: b.endS - b.startS,
        waiting_time: beforeLeg ? 0 : b.startS - idle,
        ...loadField(),
        arrival: beforeLeg ? b.startS : idle,
        duration: travel,
        ...distanceField(metres),
        violations: [],
      });
      if (beforeLeg) leftAt = Math.max(leftAt, b.endS);
      else idle = b.endS;
    }
    return idle;
  };
  route.stops.forEach((t, k) => {
    const task = tasks[k]!;
    const place = placeOf[call.taskAt[jobs[k]!]!]!;
    const free = breaksBefore(k, t.arrivalS);
    travel += t.arrivalS - leftAt;
    if (from !== undefined) {
      cost += legCost(from, place, t.arrivalS - leftAt);
      metres += distancesM[from]![place]!;
    }
    task.delivery.forEach((q, d) => (load[d]! -= q));
    task.pickup.forEach((q, d) => (load[d]! += q));
    steps.push({
      ...taskFields(task),
      setup: task.setup,
      service: task.service,
      waiting_time: k === 0 ? t.startS - free - lateStart : t.startS - free,
      ...loadField(),
      // after a break taken on arriving, the task is reached (free) when the break ends
      arrival: k === 0 ? free + lateStart : free,
      duration: travel,
      ...distanceField(metres),
      violations: [],
    });
    leftAt = t.departureS;
    from = place;
  });
  const end = call.vehicleEnd[vehicle];
  // breaks after the last task: before the last leg, or at the end (then arrived there before them)
  const atEnd = breaks.filter((b) => b.afterStops === route.stops.length && b.startS >= b.nextArrivalS);
  const arrivedS = atEnd.length > 0 ? atEnd[0]!.nextArrivalS : route.endS;
  breaksBefore(route.stops.length, arrivedS, true);
  if (end !== undefined) {
    travel += arrivedS - leftAt;
    if (from !== undefined) {
      cost += legCost(from, placeOf[end]!, arrivedS - leftAt);
      metres += distancesM[from]![placeOf[end]!]!;
    }
  }
  breaksBefore(route.stops.length, arrivedS);
  if (end !== undefined) {
    steps.push({
      ...vehicleStep(v, 'end'),
      waiting_time: 0,
      ...loadField(),
      arrival: route.endS,
      duration: travel,
      ...distanceField(metres),
      violations: [],
    });
  }
  return routeTotals(call, vehicle, { tasks, steps, cost, travel, metres, violations: [] });
}

/** A route of the answer from its steps: VROOM's sums over its tasks and steps (solved or planned alike). */
export function routeTotals(
  call: VroomCall,
  vehicle: number,
  route: {
    tasks: readonly VroomTask[];
    steps: VroomStep[];
    cost: number;
    travel: number;
    metres: number;
    violations: VroomViolation[];
  },
): VroomRoute {
  const { tasks, steps } = route;
  const v = call.vehicles[vehicle]!;
  const dims = call.dimensions;
  const sumOf = (pick: (t: VroomTask) => number[]) =>
    Array.from({ length: dims }, (_, d) => tasks.reduce((s, t) => s + pick(t)[d]!, 0));
  return {
    vehicle: v.id,
    cost: call.costs.fixed[vehicle]! + route.cost,
    setup: tasks.reduce((s, t) => s + t.setup, 0),
    service: steps.reduce((s, step) => s + step.service, 0),
    duration: route.travel,
    waiting_time: steps.reduce((s, step) => s + step.waiting_time, 0),
    priority: tasks.reduce((s, t) => s + t.priority, 0),
    violations: route.violations,
    ...(dims > 0 ? { delivery: sumOf((t) => t.delivery), pickup: sumOf((t) => t.pickup) } : {}),
    ...(v.description !== undefined ? { description: v.description } : {}),
    ...(call.distancesKnown ? { distance: Math.round(route.metres) } : {}),
    steps,
  };
}
