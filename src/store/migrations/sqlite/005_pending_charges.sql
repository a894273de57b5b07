-- A live debit stays pending until its call answers: settled (row deleted) or refunded.
-- Pending debits past expires_at_ms belong to calls that can no longer complete (a crash,
-- a lost instance) and are refunded by the recovery sweep; so are those of an instance
-- (owner) that restarted.
CREATE TABLE pending_debits (
  debit_id      INTEGER PRIMARY KEY REFERENCES ledger (id),
  expires_at_ms INTEGER NOT NULL,
  owner         TEXT    NOT NULL
);
CREATE INDEX pending_debits_expiry ON pending_debits (expires_at_ms);
CREATE INDEX pending_debits_owner ON pending_debits (owner);

-- The same for sandbox reservations and Idempotency-Key claims.
ALTER TABLE sandbox_calls ADD COLUMN expires_at_ms INTEGER;
ALTER TABLE sandbox_calls ADD COLUMN owner TEXT;
ALTER TABLE idempotency_keys ADD COLUMN expires_at_ms INTEGER;
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
