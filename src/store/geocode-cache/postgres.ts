/** The geocode cache subject on PostgreSQL. */
import type { PgDb } from '../postgres-db.js';
import { GEOCODE_GET_SQL, GEOCODE_PUT_SQL } from './sql.js';
import type { GeocodeCacheEntry, GeocodeCacheStore } from './types.js';

export function postgresGeocodeCache(db: PgDb): GeocodeCacheStore {
  return {
    async getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined> {
      const row = (await db.q<GeocodeCacheEntry>(GEOCODE_GET_SQL('$1'), [cacheKey])).rows[0];
      return row === undefined ? undefined : { result: row.result, precision: row.precision, engine: row.engine };
    },

    async putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void> {
      await db.q(GEOCODE_PUT_SQL(['$1', '$2', '$3', '$4', '$5']), [cacheKey, entry.result, entry.precision, entry.engine, now.toISOString()]);
    },
  };
}
