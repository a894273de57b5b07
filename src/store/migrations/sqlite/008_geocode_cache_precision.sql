-- The geocode cache records, beside the result, how precise it is and which engine found it
-- (housenumber | street | locality | municipality; geoplateforme | ban | nominatim), NULL for a
-- cached "not found". Rows written before are filled in from their JSON.
ALTER TABLE geocode_cache ADD COLUMN precision TEXT;
ALTER TABLE geocode_cache ADD COLUMN engine TEXT;
UPDATE geocode_cache SET precision = json_extract(result, '$.precision'), engine = json_extract(result, '$.provider')
  WHERE json_valid(result) AND json_type(result) = 'object';
CREATE INDEX geocode_cache_engine_precision ON geocode_cache (engine, precision);
