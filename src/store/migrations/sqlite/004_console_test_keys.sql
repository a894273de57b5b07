-- Test keys handed out by the web console, for its per-address and per-e-mail daily limits.
CREATE TABLE console_key_requests (
  id          INTEGER PRIMARY KEY,
  key_id      INTEGER NOT NULL REFERENCES api_keys (id),
  client_ip   TEXT    NOT NULL,
  email       TEXT    NOT NULL,
  at_ms       INTEGER NOT NULL
);
CREATE INDEX console_key_requests_ip ON console_key_requests (client_ip, at_ms);
CREATE INDEX console_key_requests_email ON console_key_requests (email, at_ms);
