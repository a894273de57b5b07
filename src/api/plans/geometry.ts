/**
 * Extension, `"geometry": true` on a plan: the line of each route (src/calls/geometry.ts), from its
 * vehicle's start through its stops in visiting order to its end (when it has one).
 */
import type { CallContext } from '../../calls/charged-call.js';
import type { CallSteps, Located } from '../../calls/steps.js';
import type { TravelMatrix } from '../../geo/index.js';
import type { FleetProblem, FleetResult } from '../../solver/fleet-types.js';
import type { PlanLayout } from './problem.js';
import type { PlanRequest } from './schema.js';
import type { PlanResult } from './types.js';

export interface PlanGeometryInput {
  request: PlanRequest;
  layout: PlanLayout;
  located: Located;
  solution: FleetResult;
  /** The travel times between the places, as the solver took them. */
  problem: FleetProblem;
  distancesM: TravelMatrix['distancesM'];
  /** The routing engine that gave the matrix (none with the caller's own). */
  provider?: string;
}

/** `answer` with each route's geometry, geometrySource and legs (its routes are the solution's, in order). */
export async function withPlanGeometry(
  answer: PlanResult,
  input: PlanGeometryInput,
  steps: CallSteps,
  context: CallContext,
): Promise<PlanResult> {
  const { layout, problem } = input;
  const routes = input.solution.routes.map(({ vehicle, jobs }) => {
    const end = layout.vehicleEnd[vehicle];
    return [layout.vehicleStart[vehicle]!, ...jobs.map((j) => layout.stop[j]!), ...(end !== undefined ? [end] : [])];
  });
  const size = problem.locations;
  const matrix = {
    durationsS: Array.from({ length: size }, (_, from) =>
      Array.from(problem.travel.subarray(from * size, (from + 1) * size)),
    ),
    distancesM: input.distancesM,
    ...(input.provider !== undefined ? { provider: input.provider } : {}),
  };
  const geometries = await steps.geometry(routes, input.located, matrix, input.request.avoidTolls ?? false, context);
  return { ...answer, routes: answer.routes.map((route, r) => ({ ...route, ...geometries[r] })) };
}
