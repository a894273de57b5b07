-- The geocode cache records, beside the result, how precise it is and which engine found it
-- (housenumber | street | locality | municipality; geoplateforme | ban | nominatim), NULL for a
-- cached "not found". Rows written before are filled in from their JSON.
ALTER TABLE geocode_cache ADD COLUMN precision text;
ALTER TABLE geocode_cache ADD COLUMN engine text;
UPDATE geocode_cache SET precision = result::jsonb ->> 'precision', engine = result::jsonb ->> 'provider'
  WHERE jsonb_typeof(result::jsonb) = 'object';
CREATE INDEX geocode_cache_engine_precision ON geocode_cache (engine, precision);
