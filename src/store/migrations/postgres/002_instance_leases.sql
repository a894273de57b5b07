-- The PostgreSQL twin of migrations/sqlite/006: one lease per service process (random
-- instance id per start, renewed every LEASE_HEARTBEAT_MS). Pending charges carry the id in
-- their owner column. A lease not renewed by expires_at_ms is ended ('settled') by the next
-- recovery sweep of any instance, under a row lock, in the same transaction that gives back
-- its pending charges; a renewal never revives an ended lease. A clean shutdown ends it as
-- 'released'. Ended leases are kept a week for `admin db check`.
CREATE TABLE instance_leases (
  instance_id     text    PRIMARY KEY,
  host            text    NOT NULL,
  pid             integer NOT NULL,
  port            integer NOT NULL,
  started_at_ms   bigint  NOT NULL,
  heartbeat_at_ms bigint  NOT NULL,
  expires_at_ms   bigint  NOT NULL,
  ended_at_ms     bigint,
  end_reason      text    CHECK (end_reason IN ('released', 'settled')),
  -- who settled it: the instance id of the sweeper, or 'admin' (db recover)
  ended_by        text,
  CHECK ((ended_at_ms IS NULL) = (end_reason IS NULL))
);
CREATE INDEX instance_leases_open ON instance_leases (expires_at_ms) WHERE ended_at_ms IS NULL;
CREATE INDEX instance_leases_ended ON instance_leases (ended_at_ms) WHERE ended_at_ms IS NOT NULL;

-- the sweep looks charges up by owner
CREATE INDEX sandbox_calls_reserved_owner ON sandbox_calls (owner) WHERE state = 'reserved';
CREATE INDEX idempotency_keys_pending_owner ON idempotency_keys (owner) WHERE state = 'pending';
