/** Row shapes shared by both stores (same column names in SQLite and PostgreSQL) and their mapping to records. */
import { leaseState } from '../billing/rules/recovery.js';
import type { BalanceHolder, DebitEntry } from '../billing/rules/charges.js';
import type { ApiKeyRecord, LedgerEntry, LeaseStatus, OutboxMessage, PaymentRecord, PaymentStatus } from './types.js';

export interface KeyRow {
  id: number;
  kind: 'test' | 'live';
  last4: string;
  email: string | null;
  balance: number;
  created_at: string;
  revoked_at: string | null;
}

export const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  kind: row.kind,
  last4: row.last4,
  email: row.email,
  balance: row.balance,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/** A key row as the billing rules read it. */
export const balanceHolder = (row: KeyRow | undefined): BalanceHolder | undefined =>
  row && { id: row.id, kind: row.kind, balance: row.balance, revokedAt: row.revoked_at, email: row.email };

export interface OutboxRow {
  id: number;
  kind: OutboxMessage['kind'];
  to_address: string;
  subject: string;
  body: string;
  key_id: number | null;
  attempts: number;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
  sent_at: string | null;
  cancelled_at: string | null;
}

export const toOutbox = (r: OutboxRow): OutboxMessage => ({
  id: r.id,
  kind: r.kind,
  to: r.to_address,
  subject: r.subject,
  body: r.body,
  keyId: r.key_id,
  attempts: r.attempts,
  lastError: r.last_error,
  createdAt: r.created_at,
  nextAttemptAt: r.next_attempt_at,
  sentAt: r.sent_at,
  cancelledAt: r.cancelled_at,
});

/** `created_key` is 0/1 in SQLite and a boolean in PostgreSQL. */
export interface PaymentRow {
  id: number;
  stripe_event_id: string;
  stripe_session_id: string;
  email: string;
  pack_id: string;
  stops: number;
  amount_cents: number;
  currency: string;
  key_id: number;
  last4: string;
  created_key: number | boolean;
  created_at: string;
}

export const toPayment = (p: PaymentRow): PaymentRecord => ({
  id: p.id,
  stripeEventId: p.stripe_event_id,
  stripeSessionId: p.stripe_session_id,
  email: p.email,
  packId: p.pack_id,
  stops: p.stops,
  amountCents: p.amount_cents,
  currency: p.currency,
  keyId: p.key_id,
  keyLast4: p.last4,
  createdKey: p.created_key === true || p.created_key === 1,
  createdAt: p.created_at,
});

/** The payment of one session and the sent time of its e-mail (written in the same transaction, so with the same created_at). */
export const PAYMENT_BY_SESSION_SQL = `SELECT p.*, k.last4,
  (SELECT o.sent_at FROM outbox o WHERE o.key_id = p.key_id AND o.kind IN ('new_key', 'top_up') AND o.created_at = p.created_at ORDER BY o.id LIMIT 1) AS mail_sent_at
  FROM payments p JOIN api_keys k ON k.id = p.key_id WHERE p.stripe_session_id = $1`;

export const toPaymentStatus = (p: PaymentRow & { mail_sent_at: string | null }): PaymentStatus => ({
  ...toPayment(p),
  mailSentAt: p.mail_sent_at,
});

/** An instance_leases row with what its instance still holds (counts are bigint in PostgreSQL, mapped to numbers). */
export interface LeaseRow {
  instance_id: string;
  host: string;
  pid: number;
  port: number;
  started_at_ms: number;
  heartbeat_at_ms: number;
  expires_at_ms: number;
  ended_at_ms: number | null;
  end_reason: 'released' | 'settled' | null;
  ended_by: string | null;
  pending_debits: number;
  pending_stops: number;
  sandbox_reservations: number;
  idempotency_claims: number;
}

const iso = (ms: number): string => new Date(Number(ms)).toISOString();

export const toLeaseStatus = (r: LeaseRow, nowMs: number): LeaseStatus => ({
  instanceId: r.instance_id,
  host: r.host,
  pid: r.pid,
  port: r.port,
  state: leaseState({ endReason: r.end_reason, endedAtMs: r.ended_at_ms, expiresAtMs: Number(r.expires_at_ms) }, nowMs),
  startedAt: iso(r.started_at_ms),
  heartbeatAt: iso(r.heartbeat_at_ms),
  expiresAt: iso(r.expires_at_ms),
  endedAt: r.ended_at_ms === null ? null : iso(r.ended_at_ms),
  endedBy: r.ended_by,
  pendingDebits: Number(r.pending_debits),
  pendingStops: Number(r.pending_stops),
  sandboxReservations: Number(r.sandbox_reservations),
  idempotencyClaims: Number(r.idempotency_claims),
});

export interface LedgerRow {
  id: number;
  key_id: number;
  delta: number;
  reason: LedgerEntry['reason'];
  request_id: string | null;
  client_request_id: string | null;
  refund_of: number | null;
  created_at: string;
}

export const toLedgerEntry = (r: LedgerRow): LedgerEntry => ({
  id: r.id,
  keyId: r.key_id,
  delta: r.delta,
  reason: r.reason,
  requestId: r.request_id,
  clientRequestId: r.client_request_id,
  refundOf: r.refund_of,
  createdAt: r.created_at,
});

/** A ledger row as the refund rule reads it. */
export const toDebitEntry = (r: LedgerRow | undefined): DebitEntry | undefined =>
  r && {
    id: r.id,
    keyId: r.key_id,
    delta: r.delta,
    reason: r.reason,
    requestId: r.request_id,
    clientRequestId: r.client_request_id,
  };
