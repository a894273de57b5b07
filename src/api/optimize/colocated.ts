/**
 * Stops at the same place (two parcels for one building, two addresses geocoded to one point) are
 * still separate stops; the solver sees zero travel time between them, so any order among them is
 * equally short and its choice is arbitrary. This puts them back in input order: within each group
 * of stops no more than COLOCATED_METRES apart, the positions the solver gave the group are filled
 * with the group's stops in input order, unless that makes the route later (more total lateness)
 * than the solver's order; then the solver's order of that group is kept.
 */
import { greatCircleM, type Point } from '../../geo/index.js';

/** Stops closer than this are one place (geocoders place two entrances of a building a few metres apart). */
export const COLOCATED_METRES = 5;

/** Groups of stop indices (input order) within COLOCATED_METRES of one another, transitively; singletons left out. */
export function colocatedGroups(points: readonly Point[]): number[][] {
  const parent = points.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      if (greatCircleM(points[i]!, points[j]!) <= COLOCATED_METRES) parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, number[]>();
  points.forEach((_, i) => {
    const root = find(i);
    groups.set(root, [...(groups.get(root) ?? []), i]);
  });
  return [...groups.values()].filter((g) => g.length > 1);
}

/**
 * `order` (stop indices in visiting order) with each co-located group in input order where that adds
 * no lateness. `latenessS(order)` prices an order (total seconds late).
 */
export function inputOrderAtSamePlace(order: readonly number[], stopPoints: readonly Point[], latenessS: (order: readonly number[]) => number): number[] {
  let current = [...order];
  const groups = colocatedGroups(stopPoints);
  if (groups.length === 0) return current;
  let currentLateness = latenessS(current);
  for (const group of groups) {
    const members = new Set(group);
    const positions = current.flatMap((stop, position) => (members.has(stop) ? [position] : []));
    const candidate = [...current];
    positions.forEach((position, k) => { candidate[position] = group[k]!; });
    if (candidate.every((stop, i) => stop === current[i])) continue;
    const lateness = latenessS(candidate);
    if (lateness <= currentLateness) {
      current = candidate;
      currentLateness = lateness;
    }
  }
  return current;
}
