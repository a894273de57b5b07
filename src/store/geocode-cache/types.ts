/** The geocode cache subject. */
/** One geocode cache row: the result as JSON (null = "known not found"), its precision and the engine that found it. */
export interface GeocodeCacheEntry {
  result: string;
  precision: string | null;
  engine: string | null;
}

export interface GeocodeCacheStore {
  getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined>;
  /** Inserts or replaces the entry of a key. */
  putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void>;
}
