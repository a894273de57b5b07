import type { OptimizeRequest } from './schema.js';

export interface Waypoint {
  id: string;
  order: number;
  latitude: number | null;
  longitude: number | null;
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
}

export interface OptimizeContext {
  sandbox: boolean;
  requestId: string;
  /** Aborted when the client goes away or the request deadline passes. */
  signal: AbortSignal;
}

/** Geocoding, travel times, solving and scheduling behind one call. Throws ApiError on failure. */
export interface RouteOptimizer {
  optimize(request: OptimizeRequest, context: OptimizeContext): Promise<RouteResult>;
}
