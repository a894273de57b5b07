/**
 * The one "same place" rule of every paid call. Points no more than SAME_PLACE_METRES apart,
 * transitively, are one place (a geocoder places two entrances of a building a few metres apart; six
 * vans leave one depot): the travel matrix has one row per place, so any order among the stops of one
 * place is equally short to the solver, and its choice is arbitrary. Each
 * route then visits the stops of one place in input order: the positions the solver gave them are
 * filled with them in input order, unless that makes the route later (more total lateness, or a later
 * end: a wait for a notBefore can move it); then the solver's order among them stays. The times are always
 * the solver's: optimize reorders its one route here, pricing each candidate with the module's
 * `evaluate_route`; a plan's routes come back from the fleet solver already so ordered, by its last step
 * (solver-rs/src/fleet/same_place.rs), since their times follow the fleet's rules (windows, shifts).
 */
import { greatCircleM, type Point } from '../geo/index.js';

/** Points closer than this are one place. */
export const SAME_PLACE_METRES = 5;

/** The places of `points` (each the first of its points, in input order) and, per point, the index of its place. */
export function places(points: readonly Point[]): { points: Point[]; index: number[] } {
  const parent = points.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      if (greatCircleM(points[i]!, points[j]!) <= SAME_PLACE_METRES) parent[find(j)] = find(i);
    }
  }
  const placeOfRoot = new Map<number, number>();
  const distinct: Point[] = [];
  const index = points.map((point, i) => {
    const root = find(i);
    let at = placeOfRoot.get(root);
    if (at === undefined) {
      at = distinct.length;
      placeOfRoot.set(root, at);
      distinct.push(point);
    }
    return at;
  });
  return { points: distinct, index };
}

/** How late a route is: what visiting its stops in another order must not make worse. */
export interface RouteLateness {
  totalLatenessS: number;
  /** From the departure to the return (or the end of the last service). */
  durationS: number;
}

/**
 * `order` (stop numbers in visiting order) with the stops of each place in input order (ascending stop
 * number) where that makes the route no later. `placeOf(stop)` is the place of a stop; `price(order)`
 * is how late the route is in that order.
 */
export function inputOrderAtSamePlace(
  order: readonly number[],
  placeOf: (stop: number) => number,
  price: (order: readonly number[]) => RouteLateness,
): number[] {
  // each group in input order; the groups in the input order of their first stop
  const byPlace = new Map<number, number[]>();
  for (const stop of [...order].sort((a, b) => a - b))
    byPlace.set(placeOf(stop), [...(byPlace.get(placeOf(stop)) ?? []), stop]);
  const groups = [...byPlace.values()].filter((g) => g.length > 1);
  let current = [...order];
  if (groups.length === 0) return current;
  let currentPrice = price(current);
  for (const group of groups) {
    const members = new Set(group);
    const positions = current.flatMap((stop, position) => (members.has(stop) ? [position] : []));
    const candidate = [...current];
    positions.forEach((position, k) => {
      candidate[position] = group[k]!;
    });
    if (candidate.every((stop, i) => stop === current[i])) continue;
    const candidatePrice = price(candidate);
    if (
      candidatePrice.totalLatenessS <= currentPrice.totalLatenessS &&
      candidatePrice.durationS <= currentPrice.durationS
    ) {
      current = candidate;
      currentPrice = candidatePrice;
    }
  }
  return current;
}
