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
  requestId: string | null;
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
  stops: number;
  callsPerMinute: number;
  stopsPerDay: number;
}

export type SandboxReservationOutcome =
  | { ok: true; reservationId: number; usage: SandboxUsage }
  | { ok: false; exceeded: 'minute' | 'day'; usage: SandboxUsage };

export interface IdempotencyBegin {
  keyId: number;
  idempotencyKey: string;
  requestHash: string;
  nowMs: number;
  /** Records created before this instant are expired and no longer replayed. */
  expiredBeforeMs: number;
}

export type IdempotencyOutcome =
  | { kind: 'started' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress' }
  | { kind: 'conflict' };

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
  /** One conditional update: debits only if the balance covers every stop. */
  debit(keyId: number, stops: number, requestId: string, now: Date): Promise<DebitOutcome>;
  /** Gives a debit back, at most once per debit. */
  refund(debitId: number, now: Date): Promise<RefundOutcome>;
  ledger(keyId: number): Promise<LedgerEntry[]>;

  sandboxUsage(window: SandboxWindow): Promise<SandboxUsage>;
  /** Checks both caps and records the call in one transaction. */
  reserveSandbox(request: SandboxReservationRequest): Promise<SandboxReservationOutcome>;
  /** A failed call: its stops are given back; the call itself still counts toward the per-minute cap. */
  releaseSandbox(reservationId: number): Promise<void>;
  /** A successful call: its stops are consumed for the day. */
  consumeSandbox(reservationId: number): Promise<void>;

  /** Claims an Idempotency-Key for a request, or tells how an earlier use of it stands. */
  beginIdempotent(request: IdempotencyBegin): Promise<IdempotencyOutcome>;
  completeIdempotent(keyId: number, idempotencyKey: string, status: number, body: string): Promise<void>;
  /** The call failed: the key is free again (a failed call is not charged, so a retry is safe). */
  abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void>;

  getCachedGeocode(cacheKey: string): Promise<string | undefined>;
  putCachedGeocode(cacheKey: string, result: string, now: Date): Promise<void>;
}
