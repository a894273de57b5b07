/**
 * Extension, `"geometry": true`: the line of each route, encoded as a polyline of precision 5 (Google's
 * algorithm, @googlemaps/polyline-codec), and its legs in driving order (start → stops → end).
 *
 * Where the line comes from (`geometrySource`): the routing engine that answered the call's matrix, then
 * the rest of its chain: OSRM's Route service ("osrm": the road line, and the legs' distances and times
 * of that service), or the built-in model ("straight": straight segments between the points, and the legs
 * of the matrix the schedule used). A call with its own matrix asks no engine: straight segments through
 * its `locations`, legs from its matrix. The line is a drawing: when every engine fails at it the route
 * is still answered, drawn straight (logged), since the call's order and times do not depend on it.
 */
import polylineCodec from '@googlemaps/polyline-codec';
import type { Point, RouteLeg, RoutingProvider, TravelMatrix } from '../geo/index.js';
import type { Logger } from '../logger.js';
import type { CallContext } from './charged-call.js';
import type { Located } from './steps.js';

export type GeometrySource = 'osrm' | 'straight';

/** What a route answer carries with `"geometry": true`. */
export interface RouteGeometry {
  /** Encoded polyline, precision 5, from the start through the stops in visiting order to the end (when any). */
  geometry: string;
  geometrySource: GeometrySource;
  /** One per leg, in driving order: legs[0] from the start to the first stop, the last to the end (when any). */
  legs: RouteLeg[];
}

export interface GeometryDeps {
  /** The call's routing engine (a chain); null with the caller's own matrix. */
  engine: RoutingProvider | null;
  avoidTolls: boolean;
  context: CallContext;
  logger: Logger;
}

/** Routes drawn at once: a plan's routes go in parallel, a few at a time. */
const CONCURRENCY = 4;

/**
 * The geometry of each route: `routes[r]` lists its locations (indices of `located.locations`) in driving
 * order; `matrix` is the call's travel between the places, with the provider that gave it.
 */
export async function routeGeometries(
  routes: readonly (readonly number[])[],
  located: Located,
  matrix: TravelMatrix & { provider?: string },
  deps: GeometryDeps,
): Promise<RouteGeometry[]> {
  const out = new Array<RouteGeometry>(routes.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < routes.length) {
      const r = next++;
      out[r] = await oneRoute(routes[r]!, located, matrix, deps);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, routes.length) }, worker));
  return out;
}

async function oneRoute(
  nodes: readonly number[],
  located: Located,
  matrix: TravelMatrix & { provider?: string },
  deps: GeometryDeps,
): Promise<RouteGeometry> {
  const places = nodes.map((n) => located.placeOf[n]!);
  const points = nodes.map((n) => {
    const point = located.locations[n]!.point;
    if (!point) throw new Error(`${located.locations[n]!.label} has no coordinates to draw`);
    return point;
  });
  const matrixLegs = places.slice(1).map((to, k) => ({
    distanceM: matrix.distancesM[places[k]!]![to]!,
    durationS: matrix.durationsS[places[k]!]![to]!,
  }));
  const straight = (): RouteGeometry => ({
    geometry: encodePolyline(points),
    geometrySource: 'straight',
    legs: matrixLegs,
  });
  if (!deps.engine) return straight();
  try {
    const line = await deps.engine.route(points, {
      avoidTolls: deps.avoidTolls,
      signal: deps.context.signal,
      ...(matrix.provider !== undefined ? { provider: matrix.provider } : {}),
    });
    // only OSRM knows roads; the built-in model's line is the straight one, with the matrix's legs
    if (line.provider !== 'osrm' || !line.legs) return straight();
    return { geometry: encodePolyline(line.coordinates), geometrySource: 'osrm', legs: line.legs };
  } catch (err) {
    deps.context.signal.throwIfAborted();
    deps.logger.warn(
      { requestId: deps.context.requestId, err: (err as Error).message, points: points.length },
      'route geometry failed: drawn straight',
    );
    return straight();
  }
}

/** Google's encoded polyline algorithm, precision 5 (what OSRM, Mapbox and Leaflet plug-ins read by default). */
export function encodePolyline(points: readonly Point[]): string {
  return polylineCodec.encode(
    points.map((p) => [p.latitude, p.longitude] as [number, number]),
    5,
  );
}
