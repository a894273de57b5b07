/** The geocode cache subject, once for both databases: it writes `geocode_cache`. */
import type { SqlDb } from '../sql.js';
import type { GeocodeCacheEntry, GeocodeCacheStore } from './types.js';

export function geocodeCacheStore(db: SqlDb): GeocodeCacheStore {
  return {
    async getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined> {
      const [row] = await db.rows<GeocodeCacheEntry>(
        'SELECT result, precision, engine FROM geocode_cache WHERE cache_key = $1',
        [cacheKey],
      );
      return row === undefined ? undefined : { result: row.result, precision: row.precision, engine: row.engine };
    },

    async putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void> {
      await db.run(
        `INSERT INTO geocode_cache (cache_key, result, precision, engine, created_at) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (cache_key) DO UPDATE SET result = excluded.result, precision = excluded.precision, engine = excluded.engine,
        created_at = excluded.created_at`,
        [cacheKey, entry.result, entry.precision, entry.engine, now.toISOString()],
      );
    },
  };
}
