/**
 * The plan part of POST /api/v1/plans: locations → (its turn near: the solver lanes) one travel matrix
 * over their places → the fleet solver → per-route Paris-time schedules. The steps it
 * shares with optimize (and their error codes), the same-place rule and the
 * budget rule are in src/calls/.
 */
import { resolveDeparture } from '../../schedule/index.js';
import {
  serviceStallIterations,
  type FleetOptions,
  type FleetProblem,
  type FleetResult,
} from '../../solver/fleet-types.js';
import type { CallContext } from '../../calls/charged-call.js';
import type { CallWorkDeps } from '../../calls/steps.js';
import { fleetProblem, planLayout, planTimeLimitMs } from './problem.js';
import type { RoutedMatrix, TravelMatrix } from '../../geo/index.js';
import { withPlanGeometry } from './geometry.js';
import { planAnswer } from './response.js';
import { planStopCount, type PlanRequest } from './schema.js';
import type { PlanLive, PlanOptimizer, PlanResult } from './types.js';
import { currentLaneTicket } from '../../solver/ticket-scope.js';
import { ownTurn } from '../../http/turns.js';

/**
 * How long before its solve could start (the lanes' worst-case estimate) a waiting plan builds its travel
 * matrix and problem. Built as they arrived, a flood's matrices were built together on the main thread (their
 * slices and collections in the same turns of the event loop) and held for the whole wait; built in turn,
 * one is built at a time and at most two big ones are held per big worker.
 */
const MATRIX_LEAD_MS = 2000;

/** The solver pool as plans use it. */
export interface PlanSolver {
  solveFleet(problem: FleetProblem, options?: FleetOptions): Promise<FleetResult>;
}

export interface PlansPipelineDeps extends CallWorkDeps<PlanSolver> {
  /** A plan's budget: msPerStop × stops, at least 200 ms, at most ceilingMs. */
  timeLimit: { ceilingMs: number; msPerStop: number };
}

export class PlansPipeline implements PlanOptimizer {
  constructor(private readonly deps: PlansPipelineDeps) {}

  budgetMs(request: PlanRequest): number {
    return planTimeLimitMs(planStopCount(request), this.deps.timeLimit);
  }

  async plan(
    request: PlanRequest,
    context: CallContext,
    budgetMs = this.budgetMs(request),
    live: PlanLive = {},
  ): Promise<PlanResult> {
    const { steps } = this.deps;
    const departure = resolveDeparture(request.departureTime, this.deps.clock());
    const layout = planLayout(request);
    const located = await steps.locate(layout.labelled, context, request);
    const { locations, placeOf } = located;
    // the matrix of a plan that waits behind others is built shortly before its turn, not as it arrives
    await currentLaneTicket()?.untilNear(MATRIX_LEAD_MS);
    context.signal.throwIfAborted();
    // from here on, the travel times are the problem's Int32Array: the matrix's rows can be collected during the solve
    const { problem, distancesM, provider } = fleetProblemOf(
      request,
      layout,
      placeOf,
      await steps.matrix(located, request.avoidTolls ?? false, context),
      departure,
    );
    const solution = await steps.solve(
      (timeLimitMs) =>
        this.deps.solver.solveFleet(problem, {
          timeLimitMs,
          stallIterations: serviceStallIterations(problem.jobs.length),
          signal: context.signal,
          ...live,
        }),
      budgetMs,
      'plan',
      context,
    );
    // shaped in a turn of its own: not behind the next solve's hand-over, which the end of this one set off
    await ownTurn();
    const answer = planAnswer({ request, layout, locations, placeOf, distancesM, departure, solution });
    if (!request.geometry) return answer;
    const geometry = { request, layout, located, solution, problem, distancesM, provider };
    return withPlanGeometry(answer, geometry, steps, context);
  }
}

function fleetProblemOf(...args: Parameters<typeof fleetProblem>): {
  problem: FleetProblem;
  distancesM: TravelMatrix['distancesM'];
  provider?: string;
} {
  return {
    problem: fleetProblem(...args),
    distancesM: args[3].distancesM,
    provider: (args[3] as RoutedMatrix).provider,
  };
}
