/** The geocode cache subject on SQLite. */
import type { SqliteDb } from '../sqlite-db.js';
import { GEOCODE_GET_SQL, GEOCODE_PUT_SQL } from './sql.js';
import type { GeocodeCacheEntry, GeocodeCacheStore } from './types.js';

export function sqliteGeocodeCache(d: SqliteDb): GeocodeCacheStore {
  return {
    async getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined> {
      const row = await d.attempt(() => d.get<GeocodeCacheEntry>(GEOCODE_GET_SQL('?'), cacheKey));
      return row === undefined ? undefined : { result: row.result, precision: row.precision, engine: row.engine };
    },

    async putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void> {
      await d.attempt(() => d.run(GEOCODE_PUT_SQL(['?', '?', '?', '?', '?']), cacheKey, entry.result, entry.precision, entry.engine, now.toISOString()));
    },
  };
}
