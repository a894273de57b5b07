/**
 * VROOM's costs: a vehicle's `costs` (`fixed`, `per_hour`, `per_km`) or the profile's cost matrix. The solver
 * minimises the cost of the routes once the most tasks are served: each used vehicle's own `fixed`, plus each leg's
 * cost, per_hour × its hours of travel + per_km × its km (rounded to a whole number per leg), or the cost
 * matrix's cell. VROOM's default (per_hour 3600, nothing else) is the travel time in seconds. `fixed` may differ
 * between vehicles (the solver's per-vehicle costs); `per_hour` and `per_km` price the legs and are the same for all.
 */
import { invalidRequest } from '../../errors.js';
import type { LabelledLocation } from '../../calls/locations.js';
import type { VroomVehicle } from './schema.js';

export interface VroomCosts {
  /** Per vehicle, in the call's order. */
  fixed: number[];
  perHour: number;
  perKm: number;
}

const DEFAULT_COSTS = { fixed: 0, perHour: 3600, perKm: 0 };

/** The vehicles' costs (per_hour and per_km the same for all), checked against what the call can price. */
export function commonCosts(
  vehicles: readonly VroomVehicle[],
  context: { profile: string; costMatrix: boolean; distancesKnown: boolean },
): VroomCosts {
  const of = (v: VroomVehicle, k: number) => {
    if ((v.costs?.per_task_hour ?? 0) !== 0)
      throw invalidRequest(
        `vehicles[${k}].costs.per_task_hour: a cost of task time is not supported (every task served is worth the same); leave it out`,
        `vehicles[${k}].costs.per_task_hour`,
      );
    return {
      fixed: v.costs?.fixed ?? DEFAULT_COSTS.fixed,
      perHour: v.costs?.per_hour ?? DEFAULT_COSTS.perHour,
      perKm: v.costs?.per_km ?? DEFAULT_COSTS.perKm,
    };
  };
  const first = of(vehicles[0]!, 0);
  const costs: VroomCosts = { fixed: [], perHour: first.perHour, perKm: first.perKm };
  vehicles.forEach((v, k) => {
    const mine = of(v, k);
    if (mine.perHour !== costs.perHour || mine.perKm !== costs.perKm)
      throw invalidRequest(
        `vehicles[${k}].costs: per_hour and per_km differ from vehicles[0]'s: they price the legs, the same for every vehicle of a call (fixed may differ); give them the same per_hour and per_km, or send one call per rate`,
        `vehicles[${k}].costs`,
      );
    costs.fixed.push(mine.fixed);
  });
  if (context.costMatrix && (costs.perHour !== DEFAULT_COSTS.perHour || costs.perKm !== DEFAULT_COSTS.perKm))
    throw invalidRequest(
      `matrices.${context.profile}.costs gives the cost of each leg, so the vehicles' per_hour and per_km cannot apply (VROOM refuses both too): leave one of them out`,
      `matrices.${context.profile}.costs`,
    );
  if (costs.perKm > 0 && !context.distancesKnown)
    throw invalidRequest(
      `vehicles[0].costs.per_km needs distances: send matrices.${context.profile}.distances (metres) beside durations, or leave per_km out`,
      'vehicles[0].costs.per_km',
    );
  return costs;
}

/**
 * The cost of each leg between the places (row-major, `size` × `size`), or undefined when it is the travel time
 * itself (VROOM's default). `placeOf` gives each labelled location's place; with a cost matrix, a place's row is
 * its locations' index.
 */
export function legCosts(
  call: {
    costs: Omit<VroomCosts, 'fixed'>;
    costMatrix?: ReadonlyArray<readonly number[]>;
    labelled: readonly LabelledLocation[];
  },
  placeOf: readonly number[],
  travel: Int32Array,
  distancesM: ReadonlyArray<readonly number[]>,
): Int32Array | undefined {
  const size = distancesM.length;
  const { costMatrix, costs } = call;
  if (costMatrix) {
    const rowOf = new Array<number>(size);
    call.labelled.forEach((l, i) => {
      if ('index' in l.location) rowOf[placeOf[i]!] = l.location.index;
    });
    const out = new Int32Array(size * size);
    for (let p = 0; p < size; p++)
      for (let q = 0; q < size; q++) out[p * size + q] = p === q ? 0 : Math.round(costMatrix[rowOf[p]!]![rowOf[q]!]!);
    return out;
  }
  if (costs.perHour === DEFAULT_COSTS.perHour && costs.perKm === 0) return undefined;
  const out = new Int32Array(size * size);
  for (let p = 0; p < size; p++)
    for (let q = 0; q < size; q++)
      out[p * size + q] = Math.round(
        (travel[p * size + q]! * costs.perHour) / 3600 + (distancesM[p]![q]! * costs.perKm) / 1000,
      );
  return out;
}
