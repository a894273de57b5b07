-- The PostgreSQL twin of migrations/sqlite/007: the caller's X-Request-Id beside the service's own
-- request_id in the ledger, and the readiness probe's row.
ALTER TABLE ledger ADD COLUMN client_request_id text;

CREATE TABLE write_probe (
  id       integer     PRIMARY KEY CHECK (id = 1),
  at       timestamptz NOT NULL,
  payload  bytea       NOT NULL
);
