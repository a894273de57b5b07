/**
 * OSRM client for the Route service, the line a vehicle drives through its stops:
 *   GET {baseUrl}/route/v1/{profile}/{lon,lat;lon,lat;...}?overview=full&geometries=geojson&steps=false[&exclude=toll]
 *
 * The answer's first route gives the line (`geometry.coordinates`, [lon, lat] pairs) and one leg per
 * pair of consecutive points (`legs[].distance`, metres, and `.duration`, seconds). A route with more
 * points than `maxRouteSize` (the server's --max-viaroute-size, OSRM's default 500) is asked in pieces
 * that share their end points, then joined: the lines without the repeated point, the legs in order.
 * Failures throw RoutingError (src/geo/routing/osrm-http.ts), and so does an answer whose shape is not
 * the Route service's.
 */
import { osrmCoordinates, osrmGet, type OsrmRequestSettings } from './osrm-http.js';
import type { Point, RouteLeg, RouteLine, RouteOptions } from './types.js';
import { RoutingError } from './types.js';

export interface OsrmRouteSettings {
  provider: string;
  baseUrl: string;
  profile: string;
  maxRouteSize: number;
  request: OsrmRequestSettings;
}

export async function osrmRoute(points: Point[], opts: RouteOptions, settings: OsrmRouteSettings): Promise<RouteLine> {
  if (points.length < 2) return { coordinates: points.map((p) => ({ ...p })), legs: [], provider: settings.provider };
  const step = settings.maxRouteSize - 1;
  const pieces: Point[][] = [];
  for (let from = 0; from < points.length - 1; from += step) pieces.push(points.slice(from, from + step + 1));
  // in order, one at a time: a long plan's routes already go in parallel (src/calls/geometry.ts)
  const coordinates: Point[] = [];
  const legs: RouteLeg[] = [];
  for (const piece of pieces) {
    const line = await routePiece(piece, opts, settings);
    coordinates.push(...(coordinates.length === 0 ? line.coordinates : line.coordinates.slice(1)));
    legs.push(...line.legs);
  }
  return { coordinates, legs, provider: settings.provider };
}

async function routePiece(
  points: Point[],
  opts: RouteOptions,
  settings: OsrmRouteSettings,
): Promise<{ coordinates: Point[]; legs: RouteLeg[] }> {
  const params = new URLSearchParams({ overview: 'full', geometries: 'geojson', steps: 'false' });
  if (opts.avoidTolls) params.set('exclude', 'toll');
  const url = `${settings.baseUrl}/route/v1/${encodeURIComponent(settings.profile)}/${osrmCoordinates(points)}?${params}`;
  const body = (await osrmGet(settings.provider, url, settings.request)) as { routes?: unknown };
  const route = Array.isArray(body.routes) ? (body.routes[0] as Record<string, unknown> | undefined) : undefined;
  const line = (route?.geometry as { coordinates?: unknown } | undefined)?.coordinates;
  const legs = route?.legs;
  const malformed = (what: string) => new RoutingError(settings.provider, `malformed route response: ${what}`);
  if (!Array.isArray(line) || line.length < 2 || !line.every(isLonLat))
    throw malformed('routes[0].geometry.coordinates is not a line of [lon, lat] pairs');
  if (!Array.isArray(legs) || legs.length !== points.length - 1 || !legs.every(isLeg))
    throw malformed(`routes[0].legs is not ${points.length - 1} legs with a distance and a duration`);
  return {
    coordinates: (line as [number, number][]).map(([longitude, latitude]) => ({ latitude, longitude })),
    legs: (legs as Array<{ distance: number; duration: number }>).map((leg) => ({
      distanceM: Math.round(leg.distance),
      durationS: Math.round(leg.duration),
    })),
  };
}

const isLonLat = (c: unknown): boolean =>
  Array.isArray(c) &&
  c.length >= 2 &&
  typeof c[0] === 'number' &&
  typeof c[1] === 'number' &&
  Math.abs(c[0]) <= 180 &&
  Math.abs(c[1]) <= 90;

const isLeg = (leg: unknown): boolean => {
  const { distance, duration } = (leg ?? {}) as { distance?: unknown; duration?: unknown };
  return (
    typeof distance === 'number' &&
    typeof duration === 'number' &&
    Number.isFinite(distance) &&
    Number.isFinite(duration) &&
    distance >= 0 &&
    duration >= 0
  );
};
