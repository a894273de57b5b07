/**
 * The persistence contract. Every method is async so a networked store
 * (PostgreSQL) can implement the same interface as the embedded SQLite one.
 * Every balance change happens together with its ledger row, atomically.
 */
export type KeyKind = 'test' | 'live';
export type LedgerReason = 'purchase' | 'debit' | 'refund' | 'admin_credit';

export interface ApiKeyRecord {
  id: number;
  kind: KeyKind;
  last4: string;
  email: string | null;
  /** Live keys: remaining prepaid stops. Always 0 for test keys. */
  balance: number;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewKey {
  kind: KeyKind;
  keyHash: string;
  last4: string;
  email: string | null;
  /** Stops credited at creation (live keys); recorded as one ledger row with `reason`. */
  initialStops: number;
  reason: 'purchase' | 'admin_credit';
  now: Date;
}

export type DebitOutcome =
  | { ok: true; debitId: number; balance: number }
  | { ok: false; balance: number };

export interface RefundOutcome {
  /** False when this debit had already been refunded (refunds happen exactly once). */
  refunded: boolean;
  balance: number;
}

export interface LedgerEntry {
  id: number;
  keyId: number;
  delta: number;
  reason: LedgerReason;
  /** The service's own id of the call (debits, refunds), the Stripe session (purchases), or an admin tag. */
  requestId: string | null;
  /** The caller's X-Request-Id for that call, when it sent one: echoed and logged, never used as the id. */
  clientRequestId: string | null;
  refundOf: number | null;
  createdAt: string;
}

export interface SandboxWindow {
  keyId: number;
  nowMs: number;
  /** Calls at or after this instant count toward the per-minute cap. */
  windowStartMs: number;
  /** The Paris calendar day (YYYY-MM-DD) whose stops count toward the daily cap. */
  day: string;
}

export interface SandboxUsage {
  callsInWindow: number;
  /** Instant of the oldest call still inside the window, if any. */
  oldestCallMs: number | null;
  stopsToday: number;
}

export interface SandboxReservationRequest extends SandboxWindow {
  requestId: string;
  /** Past `pending.untilMs` an unsettled reservation is released by the recovery sweep. */
  pending: PendingMark;
  stops: number;
  callsPerMinute: number;
  stopsPerDay: number;
}

export type SandboxReservationOutcome =
  | { ok: true; reservationId: number; usage: SandboxUsage }
  | { ok: false; exceeded: 'minute' | 'day'; usage: SandboxUsage };

/** How long a charge may stay unsettled, and which service instance holds it. */
export interface PendingMark {
  untilMs: number;
  owner: string;
}

export interface SettleCharge {
  debitId?: number;
  sandboxReservationId?: number;
  idempotency?: { keyId: number; idempotencyKey: string; status: number; body: string };
}

/** A service process as its lease row names it. */
export interface LeaseHolder {
  /** Random, taken at each process start. */
  instanceId: string;
  host: string;
  pid: number;
  /** The HTTP port it serves. */
  port: number;
}

/**
 * live: renewed in time. expired: not renewed by its expiry (the instance died or stalls); the next
 * recovery sweep settles it. settled: another instance (or `db recover`) ended it and gave its charges
 * back. released: its instance shut down cleanly.
 */
export type LeaseState = 'live' | 'expired' | 'settled' | 'released';

export interface LeaseStatus extends LeaseHolder {
  state: LeaseState;
  startedAt: string;
  heartbeatAt: string;
  expiresAt: string;
  endedAt: string | null;
  /** Who settled it: an instance id, or 'admin'. */
  endedBy: string | null;
  /** What it still holds. */
  pendingDebits: number;
  pendingStops: number;
  sandboxReservations: number;
  idempotencyClaims: number;
}

export interface RecoveryRequest {
  now: Date;
  /** Who sweeps: the calling instance's id, or 'admin' (the CLI). */
  by: string;
  /** The sweeping instance renews its own lease until this instant, in the same transaction. */
  renewUntilMs?: number;
}

export interface RecoveryReport {
  refunded: Array<{ debitId: number; keyId: number; stops: number; requestId: string | null; owner: string }>;
  releasedSandbox: number;
  releasedIdempotencyClaims: number;
  /** Leases this sweep found expired and ended: their charges are given back in the same transaction. */
  settledLeases: Array<LeaseHolder & { heartbeatAt: string }>;
  /**
   * With `renewUntilMs`: false when the sweeper's own lease had already been ended by another instance
   * (it stalled past its expiry and its charges were given back): it must take a new lease.
   */
  renewed?: boolean;
}

export interface IntegrityReport {
  keysChecked: number;
  /** Keys whose balance differs from the sum of their ledger. */
  mismatches: Array<{ keyId: number; balance: number; ledgerSum: number }>;
  /** Pending debits whose call can no longer complete: their instance's lease expired or ended, or past their deadline. */
  expiredPendingDebits: number;
  expiredSandboxReservations: number;
  /** Leases not yet ended (live or expired), and ended ones that still hold something. */
  leases: LeaseStatus[];
  /** No mismatch, nothing stale pending, and no lease that is gone (expired, settled, released) still holds anything. */
  ok: boolean;
}

export interface IdempotencyBegin {
  keyId: number;
  idempotencyKey: string;
  requestHash: string;
  nowMs: number;
  /** Records created before this instant are expired and no longer replayed. */
  expiredBeforeMs: number;
  /** A claim still pending past `pending.untilMs`, or whose owner's lease has ended, belongs to a call that died; it may be claimed again. */
  pending: PendingMark;
}

export type IdempotencyOutcome =
  | { kind: 'started' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress' }
  | { kind: 'conflict' };

/** A key as the store writes it: generated and hashed in JS, before the transaction. */
export interface KeyMaterial {
  keyHash: string;
  last4: string;
}

export type OutboxKind = 'new_key' | 'top_up' | 'replacement_key';

export interface NewOutboxMessage {
  kind: OutboxKind;
  to: string;
  subject: string;
  /** Plain text. A new-key message holds the full key until it is sent. */
  body: string;
}

export interface OutboxMessage extends NewOutboxMessage {
  id: number;
  keyId: number | null;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string;
  sentAt: string | null;
  /** Set when the message was dropped unsent (its key was replaced); the body is then blanked. */
  cancelledAt: string | null;
}

/** A payment and the delivery of the e-mail that announced it. */
export interface PaymentStatus extends PaymentRecord {
  /** When the new-key or top-up e-mail of this payment was sent; null while it waits in the outbox. */
  mailSentAt: string | null;
}

export interface PaymentRecord {
  id: number;
  stripeEventId: string;
  stripeSessionId: string;
  email: string;
  packId: string;
  stops: number;
  amountCents: number;
  currency: string;
  keyId: number;
  keyLast4: string;
  /** True when this payment created the key, false when it topped up an existing one. */
  createdKey: boolean;
  createdAt: string;
}

export interface PurchaseRequest {
  stripeEventId: string;
  stripeSessionId: string;
  email: string;
  packId: string;
  stops: number;
  amountCents: number;
  currency: string;
  /** Used only when the e-mail has no active live key. */
  newKey: KeyMaterial;
  /** Composes the e-mail once the transaction knows which key was credited and its new balance. */
  composeMail(result: { createdKey: boolean; key: ApiKeyRecord; balance: number }): NewOutboxMessage;
  now: Date;
}

export type PurchaseOutcome =
  | { kind: 'duplicate'; matched: 'event' | 'session' }
  | { kind: 'credited'; createdKey: boolean; key: ApiKeyRecord; balance: number; paymentId: number; outboxId: number };

export interface ReplaceKeyRequest {
  oldKeyId: number;
  newKey: KeyMaterial;
  composeMail(result: { oldKey: ApiKeyRecord; newKey: ApiKeyRecord; balance: number }): NewOutboxMessage;
  now: Date;
}

export interface ReplaceKeyOutcome {
  oldKey: ApiKeyRecord;
  newKey: ApiKeyRecord;
  /** Stops moved from the old key to the new one. */
  moved: number;
  outboxId: number;
}

export interface ConsoleTestKeyRequest {
  keyHash: string;
  last4: string;
  /** Lower-cased. */
  email: string;
  clientIp: string;
  nowMs: number;
  /** Requests at or after this instant count toward the limits. */
  sinceMs: number;
  maxPerIp: number;
  maxPerEmail: number;
}

export type ConsoleTestKeyOutcome =
  | { ok: true; record: ApiKeyRecord }
  | { ok: false; exceeded: 'ip' | 'email'; oldestMs: number };

/** One geocode cache row: the result as JSON (null = "known not found"), its precision and the engine that found it. */
export interface GeocodeCacheEntry {
  result: string;
  precision: string | null;
  engine: string | null;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  close(): Promise<void>;

  createKey(key: NewKey): Promise<ApiKeyRecord>;
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  findKeyByLast4(last4: string): Promise<ApiKeyRecord[]>;
  /** Returns false when no such key exists or it was already revoked. */
  revokeKey(keyHash: string, now: Date): Promise<boolean>;
  listKeys(): Promise<ApiKeyRecord[]>;

  /** Adds stops to a live key with a ledger row; returns the new balance. */
  credit(keyId: number, stops: number, reason: 'purchase' | 'admin_credit', requestId: string | null, now: Date): Promise<number>;
  /**
   * One conditional update: debits only if the balance covers every stop. The
   * debit stays pending until settled or refunded; the recovery sweep refunds it
   * once its owner's lease has ended (or its owner's own sweep, past `pending.untilMs`).
   */
  debit(keyId: number, stops: number, requestId: string, now: Date, pending: PendingMark, clientRequestId?: string | null): Promise<DebitOutcome>;
  /** Gives a debit back, at most once per debit (and clears its pending mark). */
  refund(debitId: number, now: Date): Promise<RefundOutcome>;
  /**
   * Makes a call's charge final, together with its Idempotency-Key response if
   * any, in one transaction: all of it or nothing. False when the charge is no
   * longer pending (the recovery sweep gave it back): the call must then fail.
   */
  settleCharge(charge: SettleCharge): Promise<boolean>;
  /** Writes a new lease row, live until `untilMs`. */
  acquireLease(holder: LeaseHolder, now: Date, untilMs: number): Promise<void>;
  /**
   * The recovery sweep, in ONE transaction: renews the sweeper's lease (`renewUntilMs`), ends every
   * lease past its expiry ('settled', under a row lock: two sweepers never both end one), then gives
   * back every pending charge whose call can no longer complete: those owned by an ended lease, those
   * of the sweeper past their deadline, and those of an owner without a lease row past their deadline.
   * Charges of a live lease are never touched by another instance.
   */
  recoverCharges(request: RecoveryRequest): Promise<RecoveryReport>;
  /** A clean shutdown, after draining: gives back anything the instance still holds and ends its lease 'released'. */
  releaseLease(instanceId: string, now: Date): Promise<RecoveryReport>;
  /** For every key, balance = sum of its ledger; nothing pending whose instance is gone or past its deadline; the leases. */
  checkIntegrity(now: Date): Promise<IntegrityReport>;
  ledger(keyId: number): Promise<LedgerEntry[]>;

  sandboxUsage(window: SandboxWindow): Promise<SandboxUsage>;
  /** Checks both caps and records the call in one transaction. */
  reserveSandbox(request: SandboxReservationRequest): Promise<SandboxReservationOutcome>;
  /** A failed call: its stops are given back; the call itself still counts toward the per-minute cap. */
  releaseSandbox(reservationId: number): Promise<void>;

  /** Claims an Idempotency-Key for a request, or tells how an earlier use of it stands. */
  beginIdempotent(request: IdempotencyBegin): Promise<IdempotencyOutcome>;
  /** The call failed: the key is free again (a failed call is not charged, so a retry is safe). */
  abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void>;

  /** Checks the console's per-address and per-e-mail limits and creates the test key, in one transaction. */
  issueConsoleTestKey(request: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome>;
  /** An online, consistent copy of the database (SQLite backup API). */
  backup(destination: string): Promise<void>;
  /** Cheap liveness check of the database. */
  ping(): Promise<void>;
  /**
   * The readiness probe: rewrites one row with a payload larger than what a paid call writes, so it fails when
   * a call's write would (disk full, read-only, locked past a short wait). Throws the store's error.
   */
  probeWrite(now: Date): Promise<void>;

  getCachedGeocode(cacheKey: string): Promise<GeocodeCacheEntry | undefined>;
  /** Inserts or replaces the entry of a key. */
  putCachedGeocode(cacheKey: string, entry: GeocodeCacheEntry, now: Date): Promise<void>;

  /**
   * A paid Checkout Session, in ONE transaction: the payment row (unique on the
   * Stripe event id and on the session id), the credit of the e-mail's most
   * recent active live key or a new live key, the ledger row, the outbox row.
   * A payment already recorded for this event or session changes nothing.
   */
  recordPurchase(request: PurchaseRequest): Promise<PurchaseOutcome>;
  /**
   * One transaction: a new live key for the old key's e-mail, the old key's
   * balance moved to it through two ledger rows, the old key revoked, its
   * unsent e-mails cancelled, the new-key e-mail queued. Throws when the old key is not an active live key with an e-mail.
   */
  replaceKey(request: ReplaceKeyRequest): Promise<ReplaceKeyOutcome>;
  listPayments(): Promise<PaymentRecord[]>;
  /** The payment of one Checkout Session, with when its e-mail (new key or top-up) was sent; null when none was recorded. */
  findPaymentBySession(stripeSessionId: string): Promise<PaymentStatus | null>;

  enqueueMail(message: NewOutboxMessage, keyId: number | null, now: Date): Promise<number>;
  /** Ids of unsent messages due at `now`, oldest first. */
  dueMail(now: Date, limit: number): Promise<number[]>;
  /** Claims a due message until `leaseUntil` (so no other sender takes it); null when not due or already sent. */
  claimMail(id: number, now: Date, leaseUntil: Date): Promise<OutboxMessage | null>;
  /** Marks a message sent and blanks its body. */
  markMailSent(id: number, now: Date): Promise<void>;
  markMailFailed(id: number, error: string, nextAttemptAt: Date): Promise<void>;
  /** Makes every unsent message due now; returns how many. */
  rescheduleMail(now: Date): Promise<number>;
  listMail(): Promise<OutboxMessage[]>;
}

/**
 * Error codes that mean "the database cannot take this write now" rather than a bug: SQLite's, and the
 * PostgreSQL SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention),
 * and 55P03 (lock_not_available: lock_timeout, like SQLITE_BUSY) and 25006 (read-only transaction: a standby, like SQLITE_READONLY).
 */
const UNAVAILABLE_CODES = /^(SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY)|08[0-9A-Z]{3}$|53[0-9A-Z]{3}$|57P[0-9A-Z]{2}$|55P03$|25006$)/;

/** True for store failures that are the storage's condition (busy, locked, disk full, I/O), not the request's fault. */
export function isStorageUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.test(code);
}
