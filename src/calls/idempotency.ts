/**
 * Idempotency-Key (an extension): the same key and body within the TTL
 * replays the stored 200 response without a second debit; the same key with
 * another body (or on another endpoint) is 409 idempotency_conflict; while the first call still runs,
 * 409 idempotency_in_progress. A failed call frees the key (it was not charged).
 */
import { createHash } from 'node:crypto';
import { DomainError, invalidRequest } from '../errors.js';
import type { SettleCharge } from '../store/charges/types.js';
import type { Store } from '../store/types.js';
import type { ChargeOwner } from '../billing/lease.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyClaim {
  /** Stored with the charge's settlement, in the same transaction. */
  record(status: number, body: unknown): NonNullable<SettleCharge['idempotency']>;
  abandon(): Promise<void>;
}

export type IdempotencyStart = { replay: { status: number; body: unknown } } | { claim: IdempotencyClaim };

/** JSON with object keys sorted, so the same body in another key order hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class Idempotency {
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    /** A claim left pending longer than this belongs to a call that died and may be claimed again. */
    private readonly pendingTtlMs: number,
    /** This service instance's lease (a claim is freed once its instance's lease has ended). */
    private readonly owner: ChargeOwner,
    private readonly clock: () => Date,
  ) {}

  /**
   * `scope` names the endpoint for every endpoint but optimize (whose records predate scopes): it is
   * hashed with the body, so the same key sent to another endpoint is a conflict, never a replay.
   */
  async start(keyId: number, idempotencyKey: string, body: unknown, scope?: string): Promise<IdempotencyStart> {
    if (!KEY_PATTERN.test(idempotencyKey))
      throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters without spaces');
    const owner = await this.owner.current();
    const nowMs = this.clock().getTime();
    const requestHash = createHash('sha256')
      .update(scope === undefined ? canonicalJson(body) : `${scope}\n${canonicalJson(body)}`)
      .digest('hex');
    const pending = { untilMs: nowMs + this.pendingTtlMs, owner };
    const outcome = await this.store.beginIdempotent({
      keyId,
      idempotencyKey,
      requestHash,
      nowMs,
      expiredBeforeMs: nowMs - this.ttlMs,
      pending,
    });
    switch (outcome.kind) {
      case 'replay':
        return { replay: { status: outcome.status, body: JSON.parse(outcome.body) } };
      case 'conflict':
        // the store keeps one hash of the endpoint and the body: which of the two differed cannot be told
        throw new DomainError(
          'idempotency_conflict',
          'This Idempotency-Key was already used for another request: a different body, or the same body on another endpoint ' +
            '(a key is bound to one endpoint and one body; /api/v1/optimize and /api/v1/plans never share one). ' +
            'Send a new Idempotency-Key for this request.',
        );
      case 'in_progress':
        throw new DomainError(
          'idempotency_in_progress',
          'A request with this Idempotency-Key is still being processed; retry shortly.',
          { retryAfterSeconds: 1 },
        );
      case 'started':
        return {
          claim: {
            record: (status, responseBody) => ({
              keyId,
              idempotencyKey,
              claim: pending,
              status,
              body: JSON.stringify(responseBody),
            }),
            abandon: () => this.store.abandonIdempotent(keyId, idempotencyKey, pending),
          },
        };
    }
  }
}
