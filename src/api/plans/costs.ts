/**
 * Vehicle costs and the balance option of a plan: their request shape, the solver objective they make, and the
 * money figures of the answer (docs/api.md, "Vehicle costs" and "Balancing routes").
 *
 * The solver counts money in whole units of 1e-9 (NANO): a vehicle's fixed cost once per used route, its perHour
 * per second of route duration (departure to return, waiting and breaks included), its perKm per metre of road.
 * With costs, `main` = money + 1 per second of route duration: a tie-break worth 1e-9 a second, so that a vehicle
 * without costs (free) still takes the shortest day. Balance adds a convex term per used route, as seconds of
 * route duration weighed like the objective's own seconds (see `balanceOf`).
 */
import type { FleetBalance, FleetObjective, FleetVehicleCosts } from '../../solver/fleet-types.js';
import { SERVICE_OBJECTIVE } from '../../solver/fleet-types.js';
import type { PlanRequest } from './schema.js';

export const MAX_FIXED_COST = 100_000;
export const MAX_COST_PER_HOUR = 10_000;
export const MAX_COST_PER_KM = 1_000;
/** Money units per currency unit inside the solver. */
const NANO = 1e9;
/** Balance "stops": each used route adds STOP_BALANCE_S × stops² seconds. */
export const STOP_BALANCE_S = 30;
/** Balance "duration": each used route adds d² / (2 × BALANCE_HORIZON_S) seconds (d its duration). */
export const BALANCE_HORIZON_S = 8 * 3600;

const money = (max: number, what: string, example: number) =>
  ({
    type: 'number',
    minimum: 0,
    maximum: max,
    'x-message': `must be a number from 0 to ${max}`,
    description: what,
    examples: [example],
  }) as const;

export const vehicleCostsSchema = {
  title: 'VehicleCosts',
  description:
    'What using this vehicle costs, in any one currency (the same for every vehicle of the call). When any vehicle has costs, the plan minimises the total cost once it serves the most stops (by priority) with the least lateness; a vehicle without costs costs nothing. Present: at least one of the three.',
  type: 'object',
  properties: {
    fixed: money(MAX_FIXED_COST, 'Cost of using the vehicle at all (its route has one stop or more).', 80),
    perHour: money(
      MAX_COST_PER_HOUR,
      'Cost per hour of its route, from its departure to its return (or the end of its last service when it has no end), waiting and breaks included.',
      25,
    ),
    perKm: money(MAX_COST_PER_KM, 'Cost per kilometre driven, over the same road distances as totalDistanceKm.', 0.35),
  },
  minProperties: 1,
  additionalProperties: false,
  'x-message': 'must give at least one of fixed, perHour, perKm, e.g. {"fixed": 80, "perHour": 25}',
} as const;

export const BALANCES = ['none', 'stops', 'duration'] as const;
export type Balance = (typeof BALANCES)[number];

export const balanceSchema = {
  type: 'string',
  enum: BALANCES,
  maxLength: 8,
  description:
    `Evens the work of the vehicles used (default none), after the stops served and the lateness: "stops" charges each used route ${STOP_BALANCE_S} s × its stops², "duration" its duration² / ${2 * BALANCE_HORIZON_S} s (d²/2H, H = 8 h), ` +
    'on top of the objective (total duration, or total cost with vehicle costs). Without costs it never adds a vehicle.',
  examples: ['stops'],
} as const;

/** The solver's per-vehicle costs (undefined: none) in money units. */
function solverCosts(c: PlanRequest['vehicles'][number]['costs']): FleetVehicleCosts | undefined {
  if (c === undefined) return undefined;
  return {
    fixed: Math.round((c.fixed ?? 0) * NANO),
    perDuration: Math.round(((c.perHour ?? 0) * NANO) / 3600),
    perDistance: Math.round(((c.perKm ?? 0) * NANO) / 1000),
  };
}

/** The request's cost model: true when some vehicle has costs (the objective is money, distances in metres). */
export const hasCosts = (request: PlanRequest): boolean => request.vehicles.some((v) => v.costs !== undefined);

/**
 * The balance term, in the objective's unit per second `second`: stops adds STOP_BALANCE_S seconds × s², duration
 * d² / (2H) seconds. Without costs a second is the service objective's durationWeight; with costs it is the
 * fleet's highest perHour (a vehicle's second of route), or 1 unit (the tie-break) when no vehicle has a perHour:
 * then balance only chooses among plans of the same money.
 */
function balanceOf(balance: Balance, second: number): FleetBalance | undefined {
  if (balance === 'stops') return { stops: STOP_BALANCE_S * second, duration: 0, durationScale: 1 };
  if (balance === 'duration') return { stops: 0, duration: second, durationScale: 2 * BALANCE_HORIZON_S };
  return undefined;
}

/** The plan's objective and the vehicles' costs (in request order; all undefined without costs). */
export function planObjective(request: PlanRequest): {
  objective?: FleetObjective;
  costs: Array<FleetVehicleCosts | undefined>;
} {
  const balance = request.balance ?? 'none';
  if (!hasCosts(request)) {
    const term = balanceOf(balance, SERVICE_OBJECTIVE.durationWeight);
    return {
      ...(term ? { objective: { ...SERVICE_OBJECTIVE, balance: term } } : {}),
      costs: request.vehicles.map(() => undefined),
    };
  }
  // a vehicle without costs in a costed fleet: all zero (it is free)
  const costs = request.vehicles.map((v) => solverCosts(v.costs) ?? { fixed: 0, perDuration: 0, perDistance: 0 });
  const second = Math.max(1, ...costs.map((c) => c.perDuration ?? 0));
  const term = balanceOf(balance, second);
  return {
    objective: { vehicleCost: 0, durationWeight: 1, distanceWeight: 0, ...(term ? { balance: term } : {}) },
    costs,
  };
}

/** What vehicle `v`'s route costs in currency (2 decimals): its fixed cost, its hours and its kilometres. */
export function routeCost(v: PlanRequest['vehicles'][number], durationS: number, metres: number): number {
  const c = v.costs;
  if (c === undefined) return 0;
  return roundMoney((c.fixed ?? 0) + ((c.perHour ?? 0) * durationS) / 3600 + ((c.perKm ?? 0) * metres) / 1000);
}

export const roundMoney = (x: number): number => Math.round(x * 100) / 100;
