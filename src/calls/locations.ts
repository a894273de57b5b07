/**
 * The locations of a paid call: each one labelled as answers name it, then resolved to a point (an
 * address through the geocoder chain, which says how it placed it), and the words of a 422
 * geocoding_failed.
 */
import type { GeocodeFailure, GeocodePrecision, Point } from '../geo/index.js';
import type { Location, Stop } from './location-schema.js';

/** How an address was placed: shown in its waypoint and in a geocoding_imprecise warning. */
export interface WaypointGeocoding {
  precision: GeocodePrecision;
  /** The engine that placed it: geoplateforme, ban, nominatim or embedded. */
  provider: string;
  /** What the engine matched, e.g. "8 Boulevard du Port 80000 Amiens". */
  label: string;
}

/** A location of the request and how answers name it ("stops[3] (id "a")", "vehicles[0].start (id "van")"). */
export interface LabelledLocation {
  label: string;
  role: 'start' | 'stop' | 'end';
  stopId?: string;
  /** Plans: the vehicle whose start or end this is. */
  vehicleId?: string;
  location: Location;
}

/**
 * A location of the request, resolved: its point and, for an address, how it was geocoded. The point is null
 * only for a row of the caller's matrix whose coordinates were not given (src/calls/given-matrix.ts).
 */
export type ResolvedLocation = Omit<LabelledLocation, 'location'> & {
  point: Point | null;
  geocoding?: WaypointGeocoding;
};

/** The stops of a call, labelled by their place in `stops` and their id. */
export function labelledStops(stops: readonly Stop[]): LabelledLocation[] {
  return stops.map((s, i) => ({
    label: `stops[${i}] (id ${JSON.stringify(s.id)})`,
    role: 'stop',
    stopId: s.id,
    location: s,
  }));
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
