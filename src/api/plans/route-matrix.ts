/**
 * A route's distances as the schedule module reads them: the matrix over the route's nodes ([start, stops in
 * visiting order, end?]) as a view onto the call's matrix, not a copy. Copying it was nodes² cells per route
 * (a million for a 1000-stop route, 60 % of the answer's time on the main thread), while the schedule reads
 * only the n + 1 legs; the view costs one small object per node and reads the call's matrix on demand.
 */
import type { TravelMatrix } from '../../geo/index.js';

export function routeMatrixView(
  nodes: readonly number[],
  cells: TravelMatrix['distancesM'],
): ReadonlyArray<ArrayLike<number>> {
  return nodes.map((from) => rowView(cells[from]!, nodes));
}

function rowView(row: readonly number[], nodes: readonly number[]): ArrayLike<number> {
  return new Proxy(Object.create(null) as ArrayLike<number>, {
    get: (_, key) => {
      if (key === 'length') return nodes.length;
      if (typeof key !== 'string') return undefined;
      const to = nodes[Number(key)];
      return to === undefined ? undefined : row[to];
    },
  });
}
