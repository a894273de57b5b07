/**
 * Plan mode's answer (`options.c: true`): each vehicle's route as its steps give it (src/api/vroom/plan-steps.ts),
 * timed on the call's travel matrix (the solver's problem from problem.ts: its travel times, leg costs and
 * places) and checked, with VROOM's violation causes on each step, each route and the summary.
 *
 * Times are chosen greedily, each step as early as it may: the vehicle leaves at its time_window start (or its
 * start step's service_at / service_after); a task's service starts at its arrival, or when its first window
 * ending at or after then opens, within the step's service_at / service_after / service_before. VROOM solves a
 * linear program instead, which can trade lead time against delay: where a route cannot be on time, the times
 * may differ from VROOM's; the violations are those VROOM defines.
 */
import type { FleetProblem } from '../../solver/fleet-types.js';
import {
  answerOf,
  mergedViolations,
  routeTotals,
  taskFields,
  vehicleStep,
  type VroomAnswer,
  type VroomRoute,
  type VroomStep,
  type VroomViolation,
} from './answer.js';
import type { VroomCall } from './call.js';
import type { PlanStep, StepBounds } from './plan-steps.js';

export interface PlanAnswer {
  answer: VroomAnswer;
  /** The labelled locations each answered route passes (start, tasks, end), for options.g. */
  paths: number[][];
}

export function planAnswer(
  call: VroomCall,
  plan: PlanStep[][],
  placeOf: readonly number[],
  problem: FleetProblem,
  distancesM: ReadonlyArray<readonly number[]>,
): PlanAnswer {
  const routes: VroomRoute[] = [];
  const paths: number[][] = [];
  const planned = new Set<number>();
  plan.forEach((steps, k) => {
    const tasks = steps.flatMap((s) => (s.kind === 'task' ? [s.task] : []));
    tasks.forEach((t) => planned.add(t));
    if (tasks.length === 0) return;
    routes.push(plannedRoute(call, k, steps, placeOf, problem, distancesM));
    const start = call.vehicleStart[k];
    const end = call.vehicleEnd[k];
    paths.push([
      ...(start !== undefined ? [start] : []),
      ...tasks.map((t) => call.taskAt[t]!),
      ...(end !== undefined ? [end] : []),
    ]);
  });
  const unassigned = call.stops.flatMap((t, i) =>
    planned.has(i) ? [] : [{ ...taskFields(t), reason: 'unplanned' as const }],
  );
  return { answer: answerOf(call, routes, unassigned), paths };
}

/**
 * When a service starts, arriving at `arrival`: the earliest moment the step's bounds and the windows allow, and
 * the violations when they cannot all hold (lead_time: before its window; delay: after it, or after service_before).
 */
export function serviceStart(
  arrival: number,
  windows: ReadonlyArray<readonly number[]> | undefined,
  { at, after, before }: StepBounds,
): { start: number; violations: VroomViolation[] } {
  const violations: VroomViolation[] = [];
  let earliest = arrival;
  if (at !== undefined) {
    if (at < arrival) violations.push({ cause: 'delay', duration: arrival - at });
    earliest = Math.max(at, arrival);
  } else {
    if (after !== undefined) earliest = Math.max(earliest, after);
    if (before !== undefined && earliest > before) violations.push({ cause: 'delay', duration: earliest - before });
  }
  if (!windows || windows.length === 0) return { start: earliest, violations };
  const open = windows.find((w) => w[1]! >= earliest);
  if (!open) {
    violations.push({ cause: 'delay', duration: earliest - windows[windows.length - 1]![1]! });
    return { start: earliest, violations };
  }
  if (earliest >= open[0]!) return { start: earliest, violations };
  // the window has not opened: wait for it, unless the step's bounds say to start before
  const latest = at ?? (before !== undefined && before < open[0]! ? Math.max(before, earliest) : undefined);
  if (latest === undefined) return { start: open[0]!, violations };
  violations.push({ cause: 'lead_time', duration: open[0]! - latest });
  return { start: latest, violations };
}

function plannedRoute(
  call: VroomCall,
  k: number,
  steps: PlanStep[],
  placeOf: readonly number[],
  problem: FleetProblem,
  distancesM: ReadonlyArray<readonly number[]>,
): VroomRoute {
  const v = call.vehicles[k]!;
  const fv = problem.vehicles[k]!;
  const size = problem.locations;
  const legCost = problem.distance ?? problem.travel;
  const dims = call.dimensions;
  const tasks = steps.flatMap((s) => (s.kind === 'task' ? [call.stops[s.task]!] : []));
  const capacity = v.capacity;
  const overloaded = () => capacity !== undefined && load.some((q, d) => q > capacity[d]!);
  const position = new Map(steps.flatMap((s, n) => (s.kind === 'task' ? [[s.task, n] as const] : [])));
  /** A pickup without its delivery later in the route, or a delivery without its pickup before it. */
  const misordered = (i: number): boolean => {
    const pair = call.shipments.find((s) => s.pickup === i || s.delivery === i);
    if (!pair) return false;
    const n = position.get(i)!;
    return i === pair.pickup
      ? !((position.get(pair.delivery) ?? -1) > n)
      : !((position.get(pair.pickup) ?? Infinity) < n);
  };
  // loaded at the start: the jobs' deliveries, and a shipment's amount delivered before (or without) its pickup
  const load = Array.from({ length: dims }, (_, d) =>
    steps.reduce((sum, s) => {
      if (s.kind !== 'task') return sum;
      const t = call.stops[s.task]!;
      return sum + (t.type === 'job' || (t.type === 'delivery' && misordered(s.task)) ? t.delivery[d]! : 0);
    }, 0),
  );
  const distanceField = (m: number) => (call.distancesKnown ? { distance: Math.round(m) } : {});
  const window = v.time_window;
  const out: VroomStep[] = [];
  let place = fv.start;
  let travel = 0;
  let metres = 0;
  let cost = 0;
  let served = 0;
  let free = window?.[0] ?? 0;
  const startStep = steps.find((s) => s.kind === 'start');
  const limits = (): VroomViolation[] => [
    ...(overloaded() ? [{ cause: 'load' as const }] : []),
    ...(v.max_travel_time !== undefined && travel > v.max_travel_time ? [{ cause: 'max_travel_time' as const }] : []),
    ...(v.max_distance !== undefined && metres > v.max_distance ? [{ cause: 'max_distance' as const }] : []),
  ];
  const moveTo = (next: number) => {
    const leg = problem.travel[place * size + next]!;
    cost += legCost[place * size + next]!;
    if (place < distancesM.length && next < distancesM.length) metres += distancesM[place]![next]!;
    travel += leg;
    place = next;
    return leg;
  };
  const loadField = () => (dims > 0 ? { load: [...load] } : {});
  if (call.vehicleStart[k] !== undefined) {
    free = startStep?.at ?? startStep?.after ?? free;
    const early = window && free < window[0]! ? [{ cause: 'lead_time' as const, duration: window[0]! - free }] : [];
    out.push({
      ...vehicleStep(v, 'start'),
      waiting_time: 0,
      ...loadField(),
      arrival: free,
      duration: 0,
      ...distanceField(0),
      violations: [...early, ...limits()],
    });
  }
  for (const step of steps) {
    if (step.kind === 'start') continue;
    if (step.kind === 'end') break;
    if (step.kind === 'break') {
      const b = v.breaks![step.index]!;
      const { start, violations } = serviceStart(free, b.time_windows, step);
      out.push({
        type: 'break',
        id: b.id,
        ...(b.description !== undefined ? { description: b.description } : {}),
        setup: 0,
        service: b.service ?? 0,
        waiting_time: start - free,
        ...loadField(),
        arrival: free,
        duration: travel,
        ...distanceField(metres),
        violations: [...violations, ...limits()],
      });
      free = start + (b.service ?? 0);
      continue;
    }
    const task = call.stops[step.task]!;
    const arrival = free + moveTo(placeOf[call.taskAt[step.task]!]!);
    const { start, violations } = serviceStart(arrival, task.windows, step);
    task.delivery.forEach((q, d) => (load[d]! -= q));
    task.pickup.forEach((q, d) => (load[d]! += q));
    served++;
    out.push({
      ...taskFields(task),
      setup: task.setup,
      service: task.service,
      waiting_time: start - arrival,
      ...loadField(),
      arrival,
      duration: travel,
      ...distanceField(metres),
      violations: [
        ...violations,
        ...limits(),
        ...(v.max_tasks !== undefined && served > v.max_tasks ? [{ cause: 'max_tasks' as const }] : []),
        ...(task.skills.every((s) => v.skills?.includes(s)) ? [] : [{ cause: 'skills' as const }]),
        ...(misordered(step.task) ? [{ cause: 'precedence' as const }] : []),
      ],
    });
    free = start + task.setup + task.service;
  }
  if (call.vehicleEnd[k] !== undefined) {
    const arrival = free + moveTo(fv.end!);
    const endStep = steps.find((s) => s.kind === 'end');
    const late = Math.max(
      window ? arrival - window[1]! : 0,
      endStep?.before !== undefined ? arrival - endStep.before : 0,
    );
    out.push({
      ...vehicleStep(v, 'end'),
      waiting_time: 0,
      ...loadField(),
      arrival,
      duration: travel,
      ...distanceField(metres),
      violations: [...(late > 0 ? [{ cause: 'delay' as const, duration: late }] : []), ...limits()],
    });
  }
  const taken = new Set(steps.flatMap((s) => (s.kind === 'break' ? [s.index] : [])));
  const missing = (v.breaks ?? []).some((_, i) => !taken.has(i));
  const violations = mergedViolations([
    ...out.flatMap((s) => s.violations),
    ...(missing ? [{ cause: 'missing_break' as const }] : []),
  ]);
  return routeTotals(call, k, { tasks, steps: out, cost, travel, metres, violations });
}
