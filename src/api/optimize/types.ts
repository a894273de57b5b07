import type { GeocodePrecision } from '../../geo/index.js';
import type { OptimizeRequest } from './schema.js';

export interface Waypoint {
  id: string;
  order: number;
  latitude: number | null;
  longitude: number | null;
  /** Address stops only: how the address was placed. */
  geocoding?: WaypointGeocoding;
}

export interface WaypointGeocoding {
  precision: GeocodePrecision;
  /** The engine that placed it: geoplateforme, ban, nominatim or embedded. */
  provider: string;
  /** What the engine matched, e.g. "8 Boulevard du Port 80000 Amiens". */
  label: string;
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

/** The route part of OptimizeResponse; billing fields are added by the handler. */
export interface RouteResult {
  order: string[];
  waypoints: Waypoint[];
  totalDistanceKm: number;
  estimatedTimeMin: number;
  schedule: Array<{ colisId: string; arrivee: string }> | null;
  departAt: string | null;
  returnAt: string | null;
  lateStops: Array<{ colisId: string; arrivee: string; limite: string; retardMin: number }> | null;
  /** Present only when some location was geocoded coarser than street level: one entry per such location. */
  warnings?: RouteWarning[];
}

export type { CallContext as OptimizeContext } from '../charged-call.js';
import type { CallContext as OptimizeContext } from '../charged-call.js';

/** Geocoding, travel times, solving and scheduling behind one call. Throws DomainError on failure. */
export interface RouteOptimizer {
  optimize(request: OptimizeRequest, context: OptimizeContext): Promise<RouteResult>;
}
