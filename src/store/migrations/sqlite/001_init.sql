CREATE TABLE api_keys (
  id          INTEGER PRIMARY KEY,
  kind        TEXT    NOT NULL CHECK (kind IN ('test', 'live')),
  key_hash    TEXT    NOT NULL UNIQUE,
  last4       TEXT    NOT NULL,
  email       TEXT,
  balance     INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
  created_at  TEXT    NOT NULL,
  revoked_at  TEXT
);
CREATE INDEX api_keys_email ON api_keys (email);
CREATE INDEX api_keys_last4 ON api_keys (last4);

CREATE TABLE ledger (
  id          INTEGER PRIMARY KEY,
  key_id      INTEGER NOT NULL REFERENCES api_keys (id),
  delta       INTEGER NOT NULL,
  reason      TEXT    NOT NULL CHECK (reason IN ('purchase', 'debit', 'refund', 'admin_credit')),
  request_id  TEXT,
  -- a refund points at the debit it gives back; UNIQUE makes a second refund impossible
  refund_of   INTEGER UNIQUE REFERENCES ledger (id),
  created_at  TEXT    NOT NULL,
  CHECK ((reason = 'refund') = (refund_of IS NOT NULL))
);
CREATE INDEX ledger_key ON ledger (key_id);
CREATE INDEX ledger_request ON ledger (request_id);

-- one row per sandbox optimize call that passed the caps
CREATE TABLE sandbox_calls (
  id          INTEGER PRIMARY KEY,
  key_id      INTEGER NOT NULL REFERENCES api_keys (id),
  request_id  TEXT    NOT NULL,
  at_ms       INTEGER NOT NULL,
  paris_day   TEXT    NOT NULL,
  stops       INTEGER NOT NULL CHECK (stops >= 0),
  state       TEXT    NOT NULL CHECK (state IN ('reserved', 'consumed', 'released'))
);
CREATE INDEX sandbox_calls_minute ON sandbox_calls (key_id, at_ms);
CREATE INDEX sandbox_calls_day ON sandbox_calls (key_id, paris_day);
