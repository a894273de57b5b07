-- Two indexes the PostgreSQL schema has had from its first migration and SQLite lacked (found by the schema
-- comparison test, test/store/schema.test.ts): unsent e-mails of a key (cancelled when the key is replaced) and
-- sandbox reservations by deadline (the recovery sweep).
CREATE INDEX IF NOT EXISTS outbox_key ON outbox (key_id) WHERE sent_at IS NULL AND cancelled_at IS NULL;
CREATE INDEX IF NOT EXISTS sandbox_calls_reserved ON sandbox_calls (expires_at_ms) WHERE state = 'reserved';
