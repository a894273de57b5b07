/**
 * The plan part of POST /api/v1/plans: locations → one travel matrix over the
 * distinct points → the fleet solver → per-route Paris-time schedules. The
 * steps it shares with optimize (and their error codes) are in ../route-steps.ts.
 */
import { resolveDeparture } from '../../schedule/index.js';
import { serviceStallIterations, type FleetOptions, type FleetProblem, type FleetResult } from '../../solver/fleet-types.js';
import type { CallContext } from '../charged-call.js';
import { RouteSteps, type RouteStepsDeps } from '../route-steps.js';
import { distinctPoints, fleetProblem, planLayout, planTimeLimitMs } from './problem.js';
import type { TravelMatrix } from '../../geo/index.js';
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
    const started = performance.now();
    const departure = resolveDeparture(request.departureTime, this.deps.clock());
    const layout = planLayout(request);
    const locations = await this.steps.resolve(layout.labelled, context);
    const distinct = distinctPoints(locations.map((l) => l.point));
    // from here on, the travel times are the problem's Int32Array: the matrix's rows can be collected during the solve
    const { problem, distancesM } = fleetProblemOf(request, layout, distinct.index, await this.steps.matrix(distinct.points, request.avoidTolls ?? false, context), departure);
    const timeLimitMs = solverShare(planTimeLimitMs(request.stops.length, this.deps.timeLimit), performance.now() - started);
    const solution = await this.steps.solve(() => this.deps.solver.solveFleet(problem, { timeLimitMs, stallIterations: serviceStallIterations(problem.jobs.length), signal: context.signal }), 'plan', context);
    return planAnswer({ request, layout, locations, pointOf: distinct.index, travel: problem.travel, distancesM, departure, solution });
  }
}

/**
 * The budget covers the whole plan: the solver gets what geocoding and the matrix left of it, less a
 * twentieth kept for the schedules, the answer and the worker's hand-over, and never less than a
 * tenth of the budget.
 */
export function solverShare(budgetMs: number, elapsedMs: number): number {
  return Math.round(Math.max(budgetMs / 10, budgetMs - budgetMs / 20 - elapsedMs));
}

function fleetProblemOf(...args: Parameters<typeof fleetProblem>): { problem: FleetProblem; distancesM: TravelMatrix['distancesM'] } {
  return { problem: fleetProblem(...args), distancesM: args[3].distancesM };
}
