-- The PostgreSQL twin of migrations/sqlite/010: asynchronous plans. Any instance takes the oldest
-- waiting job with FOR UPDATE SKIP LOCKED, so instances sharing the database share one queue and
-- never take the same job twice.
CREATE TABLE plan_jobs (
  id                     text    PRIMARY KEY,
  key_id                 bigint  NOT NULL REFERENCES api_keys (id),
  status                 text    NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  request_body           text    NOT NULL,
  budget_ms              integer NOT NULL,
  stops                  integer NOT NULL,
  debit_id               bigint  REFERENCES ledger (id),
  sandbox_reservation_id bigint,
  created_at_ms          bigint  NOT NULL,
  started_at_ms          bigint,
  finished_at_ms         bigint,
  owner                  text,
  attempts               integer NOT NULL DEFAULT 0,
  cancel_requested       integer NOT NULL DEFAULT 0,
  progress               text,
  result                 text,
  error                  text
);
CREATE INDEX plan_jobs_waiting ON plan_jobs (status, created_at_ms);
CREATE INDEX plan_jobs_key ON plan_jobs (key_id, status);
CREATE INDEX plan_jobs_finished ON plan_jobs (finished_at_ms);
