-- Asynchronous plans (POST /api/v1/plans with Prefer: respond-async). A job is created in the
-- transaction that makes its call's charge final; it is refunded in the transaction that ends it
-- as failed, or as cancelled before any plan existed. A running job carries its runner's instance
-- id (owner) and attempt number: a job whose runner's lease ended or expired is taken again by any
-- instance, and the old runner's late writes (another owner or attempt) change nothing.
CREATE TABLE plan_jobs (
  id                     TEXT    PRIMARY KEY,
  key_id                 INTEGER NOT NULL REFERENCES api_keys (id),
  status                 TEXT    NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  request_body           TEXT    NOT NULL,
  budget_ms              INTEGER NOT NULL,
  stops                  INTEGER NOT NULL,
  debit_id               INTEGER REFERENCES ledger (id),
  sandbox_reservation_id INTEGER,
  created_at_ms          INTEGER NOT NULL,
  started_at_ms          INTEGER,
  finished_at_ms         INTEGER,
  owner                  TEXT,
  attempts               INTEGER NOT NULL DEFAULT 0,
  cancel_requested       INTEGER NOT NULL DEFAULT 0,
  progress               TEXT,
  result                 TEXT,
  error                  TEXT
);
CREATE INDEX plan_jobs_waiting ON plan_jobs (status, created_at_ms);
CREATE INDEX plan_jobs_key ON plan_jobs (key_id, status);
CREATE INDEX plan_jobs_finished ON plan_jobs (finished_at_ms);
