/**
 * The work of POST /api/v1/vroom: the call's locations → one travel matrix over their places (the caller's
 * matrices, else the routing engine, as plans: src/calls/steps.ts) → the fleet solver, straight from the VROOM
 * request to its problem in whole seconds (src/api/vroom/problem.ts) → VROOM's answer, with each route's
 * geometry when options.g asks for it. In plan mode (options.c) the given routes are timed instead of solved
 * (src/api/vroom/plan.ts).
 */
import { DomainError } from '../../errors.js';
import type { CallContext } from '../../calls/charged-call.js';
import type { CallWorkDeps } from '../../calls/steps.js';
import type { RoutedMatrix, TravelMatrix } from '../../geo/index.js';
import {
  serviceStallIterations,
  type FleetOptions,
  type FleetProblem,
  type FleetResult,
} from '../../solver/fleet-types.js';
import { vroomAnswer, type VroomAnswer } from './answer.js';
import type { VroomCall } from './call.js';
import { routingFailure } from './errors.js';
import { vroomProblem } from './problem.js';
import { planAnswer } from './plan.js';

type Located = Parameters<CallWorkDeps<VroomSolver>['steps']['matrix']>[0];

/** The solver pool as this endpoint uses it. */
export interface VroomSolver {
  solveFleet(problem: FleetProblem, options?: FleetOptions): Promise<FleetResult>;
}

export interface VroomPipelineDeps extends CallWorkDeps<VroomSolver> {
  /** The solve's budget for a call of `stops` tasks (the plans' rule: services.ts gives the same function to admission). */
  budgetMs(stops: number): number;
}

/** Travel times, the solve and the answer behind one call. Throws DomainError on failure. */
export interface VroomOptimizer {
  solve(call: VroomCall, context: CallContext): Promise<VroomAnswer>;
}

export class VroomPipeline implements VroomOptimizer {
  constructor(private readonly deps: VroomPipelineDeps) {}

  async solve(call: VroomCall, context: CallContext): Promise<VroomAnswer> {
    const { steps } = this.deps;
    const located = await steps.locate(call.labelled, context, call);
    const matrix = await this.travel(located, context);
    const problem = vroomProblem(call, located.placeOf, matrix);
    if (call.plan) {
      // plan mode: the routes are given; only their times are computed (no solve)
      const { answer, paths } = planAnswer(call, call.plan, located.placeOf, problem, matrix.distancesM);
      return this.drawn(call, answer, paths, located, matrix, context);
    }
    const solution = await steps.solve(
      (timeLimitMs) =>
        this.deps.solver.solveFleet(problem, {
          timeLimitMs,
          stallIterations: serviceStallIterations(problem.jobs.length),
          signal: context.signal,
        }),
      this.deps.budgetMs(call.stops.length),
      'plan',
      context,
    );
    const answer = vroomAnswer({
      call,
      solution,
      placeOf: located.placeOf,
      distancesM: matrix.distancesM,
      ...(problem.distance ? { legCosts: problem.distance } : {}),
    });
    const paths = solution.routes.map(({ vehicle, jobs }) => {
      const end = call.vehicleEnd[vehicle];
      const start = call.vehicleStart[vehicle];
      return [
        ...(start !== undefined ? [start] : []),
        ...jobs.map((j) => call.taskAt[j]!),
        ...(end !== undefined ? [end] : []),
      ];
    });
    return this.drawn(call, answer, paths, located, matrix, context);
  }

  /** With options.g, each route's geometry through `paths` (the labelled locations each route passes). */
  private async drawn(
    call: VroomCall,
    answer: VroomAnswer,
    paths: number[][],
    located: Located,
    matrix: TravelMatrix & Partial<RoutedMatrix>,
    context: CallContext,
  ): Promise<VroomAnswer> {
    if (!call.drawRoutes) return answer;
    // the coordinates the request gave (with matrices the places have none of their own)
    const drawn = {
      ...located,
      locations: located.locations.map((l, i) => ({ ...l, point: l.point ?? call.points[i]! })),
    };
    const lines = await this.deps.steps.geometry(paths, drawn, matrix, false, context);
    return { ...answer, routes: answer.routes.map((route, r) => ({ ...route, geometry: lines[r]!.geometry })) };
  }

  /** The call's matrix; a failure of the routing engine is VROOM's routing error (code 3). */
  private async travel(located: Located, context: CallContext): Promise<TravelMatrix & Partial<RoutedMatrix>> {
    try {
      return await this.deps.steps.matrix(located, false, context);
    } catch (err) {
      if (err instanceof DomainError && !context.signal.aborted) throw routingFailure(err);
      throw err;
    }
  }
}
