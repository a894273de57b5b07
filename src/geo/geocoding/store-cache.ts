import type { Store } from '../../store/types.js';
import type { GeocodeCache } from './cache.js';
import type { GeocodeResult } from './types.js';

/** The geocode cache kept in the service's store (survives restarts, shared by instances). */
export class StoreGeocodeCache implements GeocodeCache {
  constructor(private readonly store: Store, private readonly clock: () => Date = () => new Date()) {}

  async get(key: string): Promise<GeocodeResult | undefined> {
    const raw = await this.store.getCachedGeocode(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as GeocodeResult);
  }

  async set(key: string, result: GeocodeResult): Promise<void> {
    await this.store.putCachedGeocode(key, JSON.stringify(result), this.clock());
  }
}
