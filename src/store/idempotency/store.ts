/**
 * The Idempotency-Key subject, once for both databases: it writes `idempotency_keys`. A claim is an
 * INSERT … ON CONFLICT DO NOTHING; on PostgreSQL the row lock orders racing claims.
 */
import { answerIdempotent, type IdempotencyRecord } from '../../billing/rules/idempotency.js';
import { claimIsDead } from '../../billing/rules/recovery.js';
import { OWNER_LEASE_COLUMNS, chargeOf, joinOwnerLease, ownerLeaseOf, type OwnerLeaseColumns } from '../owner-lease.js';
import { one, rows, run, type SqlDb, type Work } from '../sql.js';
import type { PendingMark } from '../ledger/types.js';
import type { IdempotencyBegin, IdempotencyOutcome, IdempotencyStore } from './types.js';

/** An idempotency_keys row with its owner's lease columns. */
interface ClaimRow extends OwnerLeaseColumns {
  request_hash: string;
  state: 'pending' | 'done';
  response_status: number | null;
  response_body: string | null;
}

const toRecord = (row: ClaimRow): IdempotencyRecord => ({
  requestHash: row.request_hash,
  state: row.state,
  responseStatus: row.response_status,
  responseBody: row.response_body,
});

/**
 * The answer of a call, stored for replays. False when the claim was no longer this call's: taken over by
 * another call (another owner or deadline), or freed by the sweep.
 */
export function* completeClaim(i: {
  keyId: number;
  idempotencyKey: string;
  claim: PendingMark;
  status: number;
  body: string;
}): Work<boolean> {
  return (
    (yield* run(
      `UPDATE idempotency_keys SET state = 'done', response_status = $1, response_body = $2
    WHERE key_id = $3 AND idempotency_key = $4 AND state = 'pending'
    AND owner IS NOT DISTINCT FROM $5 AND expires_at_ms IS NOT DISTINCT FROM $6`,
      [i.status, i.body, i.keyId, i.idempotencyKey, i.claim.owner, i.claim.untilMs],
    )) === 1
  );
}

/** A claim still pending, with its owner's lease, as the sweep reads it. */
export type Claim = OwnerLeaseColumns & { key_id: number; idempotency_key: string };

export const pendingClaims = (): Work<Claim[]> =>
  rows<Claim>(`SELECT k.key_id, k.idempotency_key, k.owner, k.expires_at_ms, ${OWNER_LEASE_COLUMNS}
  FROM idempotency_keys k ${joinOwnerLease('k')} WHERE k.state = 'pending'`);

/** Frees claims the sweep judged gone; a claim taken again meanwhile (another owner or deadline) is not the one judged. Returns how many. */
export function* releaseClaims(claims: Claim[]): Work<number> {
  let released = 0;
  for (const c of claims) {
    released += yield* run(
      `DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND state = 'pending'
      AND owner IS NOT DISTINCT FROM $3 AND expires_at_ms IS NOT DISTINCT FROM $4`,
      [c.key_id, c.idempotency_key, c.owner, c.expires_at_ms],
    );
  }
  return released;
}

export function idempotencyStore(db: SqlDb): IdempotencyStore {
  const d = db.dialect;
  return {
    async beginIdempotent(r: IdempotencyBegin): Promise<IdempotencyOutcome> {
      return db.write(function* (): Work<IdempotencyOutcome> {
        yield* run('DELETE FROM idempotency_keys WHERE created_at_ms < $1', [r.expiredBeforeMs]);
        for (;;) {
          // a concurrent claim of the same key waits on our insert, then finds our row
          const claimed = yield* run(
            `INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, state, created_at_ms, expires_at_ms, owner)
            VALUES ($1, $2, $3, 'pending', $4, $5, $6) ON CONFLICT (key_id, idempotency_key) DO NOTHING`,
            [r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner],
          );
          if (claimed === 1) return { kind: 'started' };
          const row = yield* one<ClaimRow>(
            `SELECT k.request_hash, k.state, k.response_status, k.response_body, k.owner, k.expires_at_ms, ${OWNER_LEASE_COLUMNS}
            FROM idempotency_keys k ${joinOwnerLease('k')} WHERE k.key_id = $1 AND k.idempotency_key = $2${d.forUpdate('k')}`,
            [r.keyId, r.idempotencyKey],
          );
          if (!row) continue; // deleted between our insert and our read: claim it again
          if (row.state === 'pending' && claimIsDead(chargeOf(row), ownerLeaseOf(row), r.nowMs)) {
            // its call died (past its deadline, or its instance's lease ended); its charge is (or will be) given back: the claim is ours now
            yield* run(
              `UPDATE idempotency_keys SET request_hash = $3, state = 'pending', response_status = NULL, response_body = NULL,
              created_at_ms = $4, expires_at_ms = $5, owner = $6 WHERE key_id = $1 AND idempotency_key = $2`,
              [r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner],
            );
            return { kind: 'started' };
          }
          return answerIdempotent(toRecord(row), r.requestHash);
        }
      });
    },

    async abandonIdempotent(keyId: number, idempotencyKey: string, claim: PendingMark): Promise<void> {
      // only this call's claim: one taken over meanwhile belongs to the call that took it
      await db.run(
        `DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND state = 'pending'
        AND owner IS NOT DISTINCT FROM $3 AND expires_at_ms IS NOT DISTINCT FROM $4`,
        [keyId, idempotencyKey, claim.owner, claim.untilMs],
      );
    },
  };
}
