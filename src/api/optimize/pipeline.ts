/**
 * The route part of POST /api/v1/optimize: locations → travel matrix → solver
 * → Paris-time schedule. Each step is a module of its own; this one wires
 * them; the steps it shares with plans (and their error codes) are in ../route-steps.ts.
 */
import { buildSchedule, resolveDeparture, solverDeadlineOffsetS } from '../../schedule/index.js';
import { routeTimes, timesForOrder } from '../../solver/evaluate.js';
import type { SolveProblem, SolveResult } from '../../solver/types.js';
import { RouteSteps, wholeSecondsRowMajor, type RouteStepsDeps } from '../route-steps.js';
import { inputOrderAtSamePlace } from './colocated.js';
import { geocodingWarnings, type ResolvedLocation } from './geocoding-report.js';
import type { Location, OptimizeRequest } from './schema.js';
import type { OptimizeContext, RouteOptimizer, RouteResult } from './types.js';

/** The solver pool as this pipeline uses it. */
export interface RouteSolver {
  solve(problem: SolveProblem, options?: { timeLimitMs?: number; signal?: AbortSignal }): Promise<SolveResult>;
}

export interface PipelineDeps extends RouteStepsDeps {
  solver: RouteSolver;
  solverTimeLimitMs: number;
  clock: () => Date;
}

export class OptimizePipeline implements RouteOptimizer {
  private readonly steps: RouteSteps;
  constructor(private readonly deps: PipelineDeps) {
    this.steps = new RouteSteps(deps);
  }

  async optimize(request: OptimizeRequest, context: OptimizeContext): Promise<RouteResult> {
    const departure = resolveDeparture(request.departureTime, this.deps.clock());
    const locations = await this.resolveLocations(request, context);
    const points = locations.map((l) => l.point);
    const matrix = await this.steps.matrix(points, request.avoidTolls ?? false, context);
    const hasEnd = request.end !== undefined;

    const size = points.length;
    const durations = wholeSecondsRowMajor(matrix.durationsS);
    const problem: SolveProblem = {
      durations,
      size,
      hasEnd,
      serviceS: Int32Array.from(request.stops, (s) => Math.round(s.serviceSeconds ?? 0)),
      deadlineS: Int32Array.from(request.stops, (s) => solverDeadlineOffsetS(s.deadline, departure)),
    };
    const solution = await this.steps.solve(() => this.deps.solver.solve(problem, { timeLimitMs: this.deps.solverTimeLimitMs, signal: context.signal }), 'route', context);

    const stops = request.stops.map((s) => ({ id: s.id, deadline: s.deadline }));
    const hasDeadlines = request.stops.some((s) => s.deadline !== undefined);
    const order = inputOrderAtSamePlace(solution.order, points.slice(1, request.stops.length + 1), hasDeadlines ? (o) => routeTimes(problem, o).latenessS : () => 0);
    const schedule = buildSchedule({ departure, order, stops, times: timesForOrder(problem, solution, order), distancesM: matrix.distancesM, hasEnd });
    const warnings = geocodingWarnings(locations);
    return {
      order: order.map((i) => request.stops[i].id),
      waypoints: order.map((i, position) => {
        const location = locations[i + 1]!;
        return {
          id: request.stops[i].id,
          order: position + 1,
          latitude: location.point.latitude,
          longitude: location.point.longitude,
          ...(location.geocoding ? { geocoding: location.geocoding } : {}),
        };
      }),
      totalDistanceKm: schedule.totalDistanceKm,
      estimatedTimeMin: schedule.estimatedTimeMin,
      schedule: schedule.schedule,
      departAt: schedule.departAt,
      returnAt: schedule.returnAt,
      lateStops: schedule.lateStops,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }

  /** [start, ...stops, end?] as points. */
  private resolveLocations(request: OptimizeRequest, context: OptimizeContext): Promise<ResolvedLocation[]> {
    return this.steps.resolve([
      { label: 'start', role: 'start', location: request.start },
      ...request.stops.map((s, i) => ({ label: `stops[${i}] (id ${JSON.stringify(s.id)})`, role: 'stop' as const, stopId: s.id, location: s as Location })),
      ...(request.end ? [{ label: 'end', role: 'end' as const, location: request.end }] : []),
    ], context);
  }
}

