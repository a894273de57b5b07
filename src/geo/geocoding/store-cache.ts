import type { Store } from '../../store/types.js';
import type { GeocodeCache } from './cache.js';
import { GEOCODE_PRECISIONS, type GeocodeResult } from './types.js';

/**
 * The geocode cache kept in the service's store (survives restarts, shared by instances). Each row
 * holds the result as JSON and, in columns of their own, its precision and the engine that found it.
 */
export class StoreGeocodeCache implements GeocodeCache {
  constructor(
    private readonly store: Store,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(key: string): Promise<GeocodeResult | undefined> {
    const entry = await this.store.getCachedGeocode(key);
    if (entry === undefined) return undefined;
    const r = JSON.parse(entry.result) as GeocodeResult;
    // a row written before results carried a label and a precision is a miss: looked up again and replaced
    if (r !== null && (typeof r.label !== 'string' || !GEOCODE_PRECISIONS.includes(r.precision))) return undefined;
    return r;
  }

  async set(key: string, result: GeocodeResult): Promise<void> {
    await this.store.putCachedGeocode(
      key,
      {
        result: JSON.stringify(result),
        precision: result?.precision ?? null,
        engine: result?.provider ?? null,
      },
      this.clock(),
    );
  }
}
