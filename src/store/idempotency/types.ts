/** The Idempotency-Key subject: a claim per key and request, and the stored answer that replays it. */
import type { PendingMark } from '../ledger/types.js';

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

export interface IdempotencyStore {
  /** Claims an Idempotency-Key for a request, or tells how an earlier use of it stands. */
  beginIdempotent(request: IdempotencyBegin): Promise<IdempotencyOutcome>;
  /**
   * The call failed: the key is free again (a failed call is not charged, so a retry is safe). Only the
   * call's own claim (`claim`: its owner and deadline) is freed, never one another call took over.
   */
  abandonIdempotent(keyId: number, idempotencyKey: string, claim: PendingMark): Promise<void>;
}
