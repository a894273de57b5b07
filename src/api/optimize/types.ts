import type { Waypoint, RouteWarning } from '../../calls/answer.js';
import type { CallContext } from '../../calls/charged-call.js';
import type { RouteGeometry } from '../../calls/geometry.js';
import type { OptimizeRequest } from './schema.js';

/** The route part of OptimizeResponse; billing fields are added by the handler. Extension: its line with `"geometry": true`. */
export interface RouteResult extends Partial<RouteGeometry> {
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

export type OptimizeContext = CallContext;

/** Geocoding, travel times, solving and scheduling behind one call. Throws DomainError on failure. */
export interface RouteOptimizer {
  optimize(request: OptimizeRequest, context: OptimizeContext): Promise<RouteResult>;
}
