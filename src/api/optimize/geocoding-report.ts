/**
 * What the answer says about geocoding: a warning per location placed coarser than its street, and
 * the words of a 422 geocoding_failed.
 */
import { isCoarserThanStreet, type GeocodeFailure, type Point } from '../../geo/index.js';
import type { RouteWarning, WaypointGeocoding } from './types.js';

/** A location of the request, resolved: its point and, for an address, how it was geocoded. */
export interface ResolvedLocation {
  label: string;
  role: 'start' | 'stop' | 'end';
  stopId?: string;
  /** Plans: the vehicle whose start or end this is. */
  vehicleId?: string;
  point: Point;
  geocoding?: WaypointGeocoding;
}

/** Why one location could not be geocoded, in words a caller can act on. */
export function describeGeocodingFailure(f: GeocodeFailure): string {
  switch (f.reason) {
    case 'not_found':
      return `${f.label} was not found`;
    case 'imprecise':
      return `${f.label} was only located at ${f.best!.precision} level ("${f.best!.label}"), and this service requires ${f.required} level or finer`;
    default:
      return `${f.label} could not be looked up because the geocoding service failed (try again later)`;
  }
}

const PRECISION_WORDS: Record<string, string> = { locality: 'a locality (lieu-dit)', municipality: 'its commune' };

/** One geocoding_imprecise warning per location placed coarser than its street, in request order. */
export function geocodingWarnings(locations: readonly ResolvedLocation[]): RouteWarning[] {
  return locations.flatMap((l): RouteWarning[] => {
    if (!l.geocoding || !isCoarserThanStreet(l.geocoding.precision)) return [];
    const vehicle = l.vehicleId === undefined ? '' : ` of vehicle ${JSON.stringify(l.vehicleId)}`;
    const what = l.role === 'stop' ? `Stop ${JSON.stringify(l.stopId)}` : `${l.role === 'start' ? 'The start' : 'The end'}${vehicle}`;
    return [{
      code: 'geocoding_imprecise',
      location: l.role,
      ...(l.role === 'stop' ? { stopId: l.stopId! } : {}),
      ...(l.vehicleId !== undefined ? { vehicleId: l.vehicleId } : {}),
      precision: l.geocoding.precision,
      message: `${what} was placed at ${PRECISION_WORDS[l.geocoding.precision] ?? l.geocoding.precision} ("${l.geocoding.label}", ${l.geocoding.provider}), `
        + 'not at its street: its position, arrival time and the distances around it are approximate.',
    }];
  });
}
