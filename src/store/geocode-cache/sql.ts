/** The geocode cache's statements, the same in both dialects but for their placeholders. */
export const GEOCODE_GET_SQL = (key: string): string => `SELECT result, precision, engine FROM geocode_cache WHERE cache_key = ${key}`;

/** Inserts or replaces the entry of a key (placeholders: key, result, precision, engine, created_at). */
export const GEOCODE_PUT_SQL = (p: string[]): string => `INSERT INTO geocode_cache (cache_key, result, precision, engine, created_at) VALUES (${p.join(', ')})
  ON CONFLICT (cache_key) DO UPDATE SET result = excluded.result, precision = excluded.precision, engine = excluded.engine,
  created_at = excluded.created_at`;
