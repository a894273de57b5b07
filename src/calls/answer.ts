/**
 * The parts of an answer every paid call writes alike: the waypoints of a route and the warnings about
 * locations geocoded coarser than their street.
 */
import { isCoarserThanStreet, type GeocodePrecision } from '../geo/index.js';
import type { ResolvedLocation, WaypointGeocoding } from './locations.js';

export type { WaypointGeocoding };

export interface Waypoint {
  id: string;
  order: number;
  latitude: number | null;
  longitude: number | null;
  /** Address stops only: how the address was placed. */
  geocoding?: WaypointGeocoding;
}

/** A location geocoded coarser than its street: times and distances around it are approximate. */
export interface RouteWarning {
  code: 'geocoding_imprecise';
  location: 'start' | 'stop' | 'end';
  /** location 'stop' only. */
  stopId?: string;
  /** Plans, location 'start' or 'end': the vehicle. */
  vehicleId?: string;
  precision: GeocodePrecision;
  message: string;
}

/** The waypoints of a route: `stops` are the resolved stops it visits, in visiting order. */
export function waypointsOf(stops: readonly ResolvedLocation[]): Waypoint[] {
  return stops.map((stop, position) => ({
    id: stop.stopId!,
    order: position + 1,
    latitude: stop.point?.latitude ?? null,
    longitude: stop.point?.longitude ?? null,
    ...(stop.geocoding ? { geocoding: stop.geocoding } : {}),
  }));
}

const PRECISION_WORDS: Record<string, string> = { locality: 'a locality (lieu-dit)', municipality: 'its commune' };

/** One geocoding_imprecise warning per location placed coarser than its street, in request order. */
export function geocodingWarnings(locations: readonly ResolvedLocation[]): RouteWarning[] {
  return locations.flatMap((l): RouteWarning[] => {
    if (!l.geocoding || !isCoarserThanStreet(l.geocoding.precision)) return [];
    const vehicle = l.vehicleId === undefined ? '' : ` of vehicle ${JSON.stringify(l.vehicleId)}`;
    const what =
      l.role === 'stop'
        ? `Stop ${JSON.stringify(l.stopId)}`
        : `${l.role === 'start' ? 'The start' : 'The end'}${vehicle}`;
    return [
      {
        code: 'geocoding_imprecise',
        location: l.role,
        ...(l.role === 'stop' ? { stopId: l.stopId! } : {}),
        ...(l.vehicleId !== undefined ? { vehicleId: l.vehicleId } : {}),
        precision: l.geocoding.precision,
        message:
          `${what} was placed at ${PRECISION_WORDS[l.geocoding.precision] ?? l.geocoding.precision} ("${l.geocoding.label}", ${l.geocoding.provider}), ` +
          'not at its street: its position, arrival time and the distances around it are approximate.',
      },
    ];
  });
}

/** The warnings of an answer: absent when there are none. */
export function warningsField(locations: readonly ResolvedLocation[]): { warnings?: RouteWarning[] } {
  const warnings = geocodingWarnings(locations);
  return warnings.length > 0 ? { warnings } : {};
}
