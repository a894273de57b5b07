-- One lease per service process: a random instance id taken at start, renewed every
-- LEASE_HEARTBEAT_MS. Pending debits, sandbox reservations and Idempotency-Key claims carry
-- it in their owner column. A lease not renewed by expires_at_ms belongs to an instance that
-- died (or stalled): the next recovery sweep of any instance ends it ('settled') and gives back
-- its pending charges in the same transaction; a renewal never revives an ended lease. A clean
-- shutdown ends it as 'released'. Ended leases are kept a week for `admin db check`.
CREATE TABLE instance_leases (
  instance_id     TEXT    PRIMARY KEY,
  host            TEXT    NOT NULL,
  pid             INTEGER NOT NULL,
  port            INTEGER NOT NULL,
  started_at_ms   INTEGER NOT NULL,
  heartbeat_at_ms INTEGER NOT NULL,
  expires_at_ms   INTEGER NOT NULL,
  ended_at_ms     INTEGER,
  end_reason      TEXT    CHECK (end_reason IN ('released', 'settled')),
  -- who settled it: the instance id of the sweeper, or 'admin' (db recover)
  ended_by        TEXT,
  CHECK ((ended_at_ms IS NULL) = (end_reason IS NULL))
);
CREATE INDEX instance_leases_open ON instance_leases (expires_at_ms) WHERE ended_at_ms IS NULL;
CREATE INDEX instance_leases_ended ON instance_leases (ended_at_ms) WHERE ended_at_ms IS NOT NULL;

-- the sweep looks charges up by owner
CREATE INDEX sandbox_calls_reserved_owner ON sandbox_calls (owner) WHERE state = 'reserved';
CREATE INDEX idempotency_keys_pending_owner ON idempotency_keys (owner) WHERE state = 'pending';
