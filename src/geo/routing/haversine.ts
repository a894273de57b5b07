/**
 * The built-in travel model ("haversine"): no road network, no server.
 *
 * Distance: the great-circle distance between the two points (haversine formula, Earth radius
 * 6,371,008.8 m) multiplied by a circuity factor, default 1.3 (roads are on average about 30 %
 * longer than the straight line).
 *
 * Duration: the road distance of a leg is driven in speed tiers, like tax brackets; each tier has
 * its own speed and the leg's time is the sum over the tiers it reaches. Short legs (urban
 * delivery) are slow, long legs use faster roads. Defaults:
 *
 *   | part of the leg (road distance) | speed     |
 *   |---------------------------------|-----------|
 *   | first 2 km                      | 20 km/h   |
 *   | from 2 km to 10 km              | 35 km/h   |
 *   | from 10 km to 50 km             | 65 km/h   |
 *   | beyond 50 km                    | 100 km/h  |
 *
 * So a 1 km leg takes 3 min, a 5 km leg 11 min 9 s (average 27 km/h), a 30 km leg 38 min 11 s
 * (47 km/h), Paris → Lyon (392 km great-circle, 510 km road) about 5 h 32 min. The model does not know
 * traffic, one-way streets or tolls: `avoidTolls` has no effect. Both the circuity factor and the
 * tiers are settings (`HaversineSettings`).
 */
import type { MatrixOptions, Point, RouteLine, RouteOptions, RoutingProvider, TravelMatrix } from './types.js';
import { RoutingError } from './types.js';

export interface SpeedTier {
  /** Upper bound of the tier, in metres of road distance from the start of the leg (Infinity for the last one). */
  upToM: number;
  /** Speed over this part of the leg, km/h. */
  kmh: number;
}

export const DEFAULT_CIRCUITY_FACTOR = 1.3;
export const DEFAULT_SPEED_TIERS: readonly SpeedTier[] = Object.freeze([
  { upToM: 2_000, kmh: 20 },
  { upToM: 10_000, kmh: 35 },
  { upToM: 50_000, kmh: 65 },
  { upToM: Infinity, kmh: 100 },
]);

export interface HaversineSettings {
  /** Road distance / great-circle distance; default 1.3. Must be ≥ 1. */
  circuityFactor?: number;
  /** Speed tiers in increasing `upToM`; the last must have upToM = Infinity. Default DEFAULT_SPEED_TIERS. */
  speedTiers?: readonly SpeedTier[];
}

const EARTH_RADIUS_M = 6_371_008.8;
/** Legs computed between two yields to the event loop (a few ms): a 1000-point matrix never blocks the main thread for long. */
const LEGS_PER_SLICE = 25_000;
const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Great-circle distance in metres (not rounded). */
export function greatCircleM(a: Point, b: Point): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Seconds to drive `roadM` metres under the tiered speed model (not rounded). */
export function tieredDurationS(roadM: number, tiers: readonly SpeedTier[] = DEFAULT_SPEED_TIERS): number {
  let s = 0;
  let from = 0;
  for (const t of tiers) {
    if (roadM <= from) break;
    const part = Math.min(roadM, t.upToM) - from;
    s += part / (t.kmh / 3.6);
    from = t.upToM;
  }
  return s;
}

export class HaversineProvider implements RoutingProvider {
  readonly name = 'haversine';
  readonly circuityFactor: number;
  readonly speedTiers: readonly SpeedTier[];

  constructor(settings: HaversineSettings = {}) {
    this.circuityFactor = settings.circuityFactor ?? DEFAULT_CIRCUITY_FACTOR;
    this.speedTiers = settings.speedTiers ?? DEFAULT_SPEED_TIERS;
    if (!(this.circuityFactor >= 1) || !Number.isFinite(this.circuityFactor)) {
      throw new Error(`haversine: circuityFactor must be a finite number >= 1, got ${this.circuityFactor}`);
    }
    const tiers = this.speedTiers;
    if (tiers.length === 0 || tiers[tiers.length - 1]!.upToM !== Infinity) {
      throw new Error('haversine: speedTiers must be non-empty and the last tier must have upToM = Infinity');
    }
    for (let i = 0; i < tiers.length; i++) {
      const t = tiers[i]!;
      if (!(t.kmh > 0) || !Number.isFinite(t.kmh)) throw new Error(`haversine: speedTiers[${i}].kmh must be > 0`);
      if (i > 0 && !(t.upToM > tiers[i - 1]!.upToM))
        throw new Error('haversine: speedTiers must have increasing upToM');
    }
  }

  /** Road distance (m) and duration (s) of one leg, rounded to integers. */
  leg(a: Point, b: Point): { distanceM: number; durationS: number } {
    const road = greatCircleM(a, b) * this.circuityFactor;
    return { distanceM: Math.round(road), durationS: Math.round(tieredDurationS(road, this.speedTiers)) };
  }

  async matrix(points: Point[], opts: MatrixOptions): Promise<TravelMatrix> {
    if (opts.signal?.aborted) throw new RoutingError(this.name, 'aborted', { cause: opts.signal.reason });
    const n = points.length;
    const durationsS = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const distancesM = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    // per point once: its latitude and longitude in radians and the cosine of its latitude (10,000 points are
    // 50 million legs: greatCircleM's work per leg, less the repeated cosines and one object per leg)
    const lat = Float64Array.from(points, (p) => rad(p.latitude));
    const lon = Float64Array.from(points, (p) => rad(p.longitude));
    const cosLat = lat.map(Math.cos);
    const factor = this.circuityFactor;
    let legs = 0;
    for (let i = 0; i < n; i++) {
      const [distRow, durRow] = [distancesM[i]!, durationsS[i]!];
      for (let j = i + 1; j < n; j++) {
        const sLat = Math.sin((lat[j]! - lat[i]!) / 2);
        const sLon = Math.sin((lon[j]! - lon[i]!) / 2);
        const h = sLat * sLat + cosLat[i]! * cosLat[j]! * sLon * sLon;
        const road = 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h))) * factor;
        const distanceM = Math.round(road);
        const durationS = Math.round(tieredDurationS(road, this.speedTiers));
        distRow[j] = distancesM[j]![i] = distanceM;
        durRow[j] = durationsS[j]![i] = durationS;
      }
      legs += n - i - 1;
      if (legs >= LEGS_PER_SLICE) {
        legs = 0;
        await new Promise((resolve) => setImmediate(resolve));
        if (opts.signal?.aborted) throw new RoutingError(this.name, 'aborted', { cause: opts.signal.reason });
      }
    }
    return { durationsS, distancesM };
  }

  /** Straight segments between the points: the model knows no roads (its legs are the matrix's). */
  async route(points: Point[], opts: RouteOptions): Promise<RouteLine> {
    if (opts.signal?.aborted) throw new RoutingError(this.name, 'aborted', { cause: opts.signal.reason });
    return { coordinates: points.map((p) => ({ latitude: p.latitude, longitude: p.longitude })), provider: this.name };
  }
}
