/**
 * The plan part of POST /api/v1/plans: locations → one travel matrix over the
 * distinct points → the fleet solver → per-route Paris-time schedules. The
 * steps it shares with optimize (and their error codes) are in ../route-steps.ts.
 */
import { resolveDeparture } from '../../schedule/index.js';
import type { FleetOptions, FleetProblem, FleetResult } from '../../solver/fleet-types.js';
import type { CallContext } from '../charged-call.js';
import { RouteSteps, type RouteStepsDeps } from '../route-steps.js';
import { distinctPoints, fleetProblem, planLayout, planTimeLimitMs } from './problem.js';
import { planAnswer } from './response.js';
import type { PlanRequest } from './schema.js';
import type { PlanOptimizer, PlanResult } from './types.js';

/** The solver pool as plans use it. */
export interface PlanSolver {
  solveFleet(problem: FleetProblem, options?: FleetOptions): Promise<FleetResult>;
}

export interface PlansPipelineDeps extends RouteStepsDeps {
  solver: PlanSolver;
  /** A plan's budget: msPerStop × stops, at least 200 ms, at most ceilingMs. */
  timeLimit: { ceilingMs: number; msPerStop: number };
  clock: () => Date;
}

export class PlansPipeline implements PlanOptimizer {
  private readonly steps: RouteSteps;
  constructor(private readonly deps: PlansPipelineDeps) {
    this.steps = new RouteSteps(deps);
  }

  async plan(request: PlanRequest, context: CallContext): Promise<PlanResult> {
    const departure = resolveDeparture(request.departureTime, this.deps.clock());
    const layout = planLayout(request);
    const locations = await this.steps.resolve(layout.labelled, context);
    const distinct = distinctPoints(locations.map((l) => l.point));
    const matrix = await this.steps.matrix(distinct.points, request.avoidTolls ?? false, context);
    const problem = fleetProblem(request, layout, distinct.index, matrix, departure);
    const timeLimitMs = planTimeLimitMs(request.stops.length, this.deps.timeLimit);
    const solution = await this.steps.solve(() => this.deps.solver.solveFleet(problem, { timeLimitMs, signal: context.signal }), 'plan', context);
    return planAnswer({ request, layout, locations, pointOf: distinct.index, matrix, departure, solution });
  }
}
