-- One row per paid Stripe Checkout Session. Both Stripe ids are unique, so a
-- replayed event, or a second event for the same session, can never credit twice.
CREATE TABLE payments (
  id                 INTEGER PRIMARY KEY,
  stripe_event_id    TEXT    NOT NULL UNIQUE,
  stripe_session_id  TEXT    NOT NULL UNIQUE,
  email              TEXT    NOT NULL,
  pack_id            TEXT    NOT NULL,
  stops              INTEGER NOT NULL CHECK (stops > 0),
  amount_cents       INTEGER NOT NULL CHECK (amount_cents >= 0),
  currency           TEXT    NOT NULL,
  key_id             INTEGER NOT NULL REFERENCES api_keys (id),
  ledger_id          INTEGER NOT NULL REFERENCES ledger (id),
  -- 1: this payment created the key; 0: it topped up an existing key
  created_key        INTEGER NOT NULL CHECK (created_key IN (0, 1)),
  created_at         TEXT    NOT NULL
);
CREATE INDEX payments_email ON payments (email);
CREATE INDEX payments_key ON payments (key_id);

-- E-mails waiting to be sent, written in the same transaction as what they announce.
-- The body of a sent message is blanked, so a key never lingers in the database.
CREATE TABLE outbox (
  id               INTEGER PRIMARY KEY,
  kind             TEXT    NOT NULL CHECK (kind IN ('new_key', 'top_up', 'replacement_key')),
  to_address       TEXT    NOT NULL,
  subject          TEXT    NOT NULL,
  body             TEXT    NOT NULL,
  key_id           INTEGER REFERENCES api_keys (id),
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT,
  created_at       TEXT    NOT NULL,
  -- due when <= now; a sender claims a message by moving this into the future (a lease)
  next_attempt_at  TEXT    NOT NULL,
  sent_at          TEXT,
  -- an unsent mail made obsolete (its key was replaced); its body is blanked
  cancelled_at     TEXT
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE sent_at IS NULL AND cancelled_at IS NULL;
