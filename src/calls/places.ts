/**
 * The one "same place" rule of every paid call. A point no more than SAME_PLACE_METRES from the first
 * point of a place belongs to it (a geocoder places two entrances of a building a few metres apart; six
 * vans leave one depot); points are taken in input order, and a chain of close neighbours is not one
 * place (houses 4 m apart along a street stay apart beyond 5 m): the travel matrix has one row per place, so any order among the stops of one
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
  // a point joins the first place whose first point is within SAME_PLACE_METRES of it (never a chain of
  // neighbours: the place's matrix row stands for all its points); a grid of cells at least that wide finds
  // the candidates among the neighbouring cells, so a 1000-stop call compares each point with a few others
  const latCell = SAME_PLACE_METRES / METRES_PER_DEGREE_LATITUDE;
  const widestCos = Math.max(0.01, Math.min(...points.map((p) => Math.cos((p.latitude * Math.PI) / 180))));
  const lonCell = latCell / widestCos;
  const cellOf = (p: Point) => [Math.floor(p.latitude / latCell), Math.floor(p.longitude / lonCell)] as const;
  const placesInCell = new Map<string, number[]>();
  const distinct: Point[] = [];
  const index = points.map((point) => {
    const [row, column] = cellOf(point);
    let found: number | undefined;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dc = -1; dc <= 1; dc++) {
        for (const place of placesInCell.get(`${row + dr},${column + dc}`) ?? []) {
          if (greatCircleM(distinct[place]!, point) <= SAME_PLACE_METRES && (found === undefined || place < found)) {
            found = place;
          }
        }
      }
    }
    if (found !== undefined) return found;
    distinct.push(point);
    const key = `${row},${column}`;
    placesInCell.set(key, [...(placesInCell.get(key) ?? []), distinct.length - 1]);
    return distinct.length - 1;
  });
  return { points: distinct, index };
}

/** A little less than a degree of latitude (111.2 km), so that a grid cell is a little wider than SAME_PLACE_METRES. */
const METRES_PER_DEGREE_LATITUDE = 111_000;

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
