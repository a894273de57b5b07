/** The keys subject: API keys (stored as hashes) and the console's rate-limited test keys. */
export type KeyKind = 'test' | 'live';

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

/** A key as the store writes it: generated and hashed in JS, before the transaction. */
export interface KeyMaterial {
  keyHash: string;
  last4: string;
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
  { ok: true; record: ApiKeyRecord } | { ok: false; exceeded: 'ip' | 'email'; oldestMs: number };

export interface KeyStore {
  createKey(key: NewKey): Promise<ApiKeyRecord>;
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  findKeyByLast4(last4: string): Promise<ApiKeyRecord[]>;
  /** Returns false when no such key exists or it was already revoked. */
  revokeKey(keyHash: string, now: Date): Promise<boolean>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Checks the console's per-address and per-e-mail limits (src/billing/rules/quotas.ts) and creates the test key, in one transaction. */
  issueConsoleTestKey(request: ConsoleTestKeyRequest): Promise<ConsoleTestKeyOutcome>;
}
