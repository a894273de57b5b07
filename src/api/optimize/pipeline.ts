/**
 * The route part of POST /api/v1/optimize: locations → travel matrix (or the
 * caller's own) → solver → Paris-time schedule → the route's line when asked. The steps it shares with plans (and their error
 * codes), the same-place rule and the budget rule are in src/calls/.
 */
import { buildSchedule, resolveDeparture, solverDeadlineOffsetS } from '../../schedule/index.js';
import { routeTimes, timesForOrder } from '../../solver/evaluate.js';
import type { SolveProblem, SolveResult } from '../../solver/types.js';
import { warningsField, waypointsOf } from '../../calls/answer.js';
import { inputOrderAtSamePlace } from '../../calls/places.js';
import { matrixAt, wholeRowMajor, type CallWorkDeps } from '../../calls/steps.js';
import { optimizeLocations } from './locations.js';
import type { OptimizeRequest } from './schema.js';
import type { OptimizeContext, RouteOptimizer, RouteResult } from './types.js';

/** The solver pool as this pipeline uses it. */
export interface RouteSolver {
  solve(problem: SolveProblem, options?: { timeLimitMs?: number; signal?: AbortSignal }): Promise<SolveResult>;
}

export interface PipelineDeps extends CallWorkDeps<RouteSolver> {
  /** The budget of a route's solve (SOLVER_TIME_LIMIT_MS). */
  solverTimeLimitMs: number;
}

export class OptimizePipeline implements RouteOptimizer {
  constructor(private readonly deps: PipelineDeps) {}

  async optimize(request: OptimizeRequest, context: OptimizeContext): Promise<RouteResult> {
    const { steps } = this.deps;
    const departure = resolveDeparture(request.departureTime, this.deps.clock());
    const located = await steps.locate(optimizeLocations(request), context, request);
    const { locations, placeOf } = located;
    const travel = await steps.matrix(located, request.avoidTolls ?? false, context);
    // the solver and the schedule take one row per location: [start, ...stops, end?]
    const matrix = matrixAt(travel, placeOf);
    const hasEnd = request.end !== undefined;

    const size = locations.length;
    const durations = wholeRowMajor(matrix.durationsS);
    const problem: SolveProblem = {
      durations,
      size,
      hasEnd,
      serviceS: Int32Array.from(request.stops, (s) => Math.round(s.serviceSeconds ?? 0)),
      deadlineS: Int32Array.from(request.stops, (s) => solverDeadlineOffsetS(s.deadline, departure)),
    };
    // the solve, then the stops of one place back in input order where that is no later, the solver timing
    // every candidate (no second implementation of the time arithmetic here): a solver failure in either
    // step is the solve's (502 optimization_failed, refunded)
    const { order, times } = await steps.solve(
      async (timeLimitMs) => {
        const solution = await this.deps.solver.solve(problem, { timeLimitMs, signal: context.signal });
        const order = inputOrderAtSamePlace(
          solution.order,
          (stop) => placeOf[stop + 1]!,
          (candidate) => {
            const times = routeTimes(problem, candidate);
            return { totalLatenessS: times.latenessS, durationS: times.durationS };
          },
        );
        return { order, times: timesForOrder(problem, solution, order) };
      },
      this.deps.solverTimeLimitMs,
      'route',
      context,
    );
    const stops = request.stops.map((s) => ({ id: s.id, deadline: s.deadline }));
    const schedule = buildSchedule({
      departure,
      order,
      stops,
      times,
      distancesM: matrix.distancesM,
      hasEnd,
    });
    const [geometry] = request.geometry
      ? await steps.geometry(
          [[0, ...order.map((i) => i + 1), ...(hasEnd ? [size - 1] : [])]],
          located,
          travel,
          request.avoidTolls ?? false,
          context,
        )
      : [];
    return {
      order: order.map((i) => request.stops[i].id),
      waypoints: waypointsOf(order.map((i) => locations[i + 1]!)),
      totalDistanceKm: schedule.totalDistanceKm,
      estimatedTimeMin: schedule.estimatedTimeMin,
      schedule: schedule.schedule,
      departAt: schedule.departAt,
      returnAt: schedule.returnAt,
      lateStops: schedule.lateStops,
      ...geometry,
      ...warningsField(locations),
    };
  }
}
