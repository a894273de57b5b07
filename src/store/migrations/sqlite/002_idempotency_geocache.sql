-- Idempotency-Key records: a pending row while the call runs, the stored 200 response after it.
CREATE TABLE idempotency_keys (
  key_id          INTEGER NOT NULL REFERENCES api_keys (id),
  idempotency_key TEXT    NOT NULL,
  request_hash    TEXT    NOT NULL,
  state           TEXT    NOT NULL CHECK (state IN ('pending', 'done')),
  response_status INTEGER,
  response_body   TEXT,
  created_at_ms   INTEGER NOT NULL,
  PRIMARY KEY (key_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at_ms);

-- Geocoder answers keyed on the normalised address (and the geocoder chain that found them).
CREATE TABLE geocode_cache (
  cache_key   TEXT PRIMARY KEY,
  result      TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
