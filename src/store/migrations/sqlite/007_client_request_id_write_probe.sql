-- The ledger's request_id is the service's own id for the call; the caller's X-Request-Id, when it sent
-- one, is kept beside it, so a caller can never make its rows look like an internal source
-- (an admin transfer `replace:…`, a Stripe session `cs_…`).
ALTER TABLE ledger ADD COLUMN client_request_id TEXT;

-- One row rewritten by the readiness probe (GET /readyz): a write as large as a paid call's,
-- so a full disk or a read-only file shows as "not ready".
CREATE TABLE write_probe (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  at       TEXT    NOT NULL,
  payload  BLOB    NOT NULL
);
