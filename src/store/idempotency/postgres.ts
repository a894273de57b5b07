/** The Idempotency-Key subject on PostgreSQL: a claim is an INSERT … ON CONFLICT DO NOTHING; the row lock orders racing claims. */
import { answerIdempotent } from '../../billing/rules/idempotency.js';
import { claimIsDead } from '../../billing/rules/recovery.js';
import { OWNER_LEASE_COLUMNS, chargeOf, joinOwnerLease, ownerLeaseOf } from '../owner-lease.js';
import type { PgDb } from '../postgres-db.js';
import { toIdempotencyRecord, type ClaimRow } from './rows.js';
import type { IdempotencyBegin, IdempotencyOutcome, IdempotencyStore } from './types.js';

export function postgresIdempotency(db: PgDb): IdempotencyStore {
  return {
    async beginIdempotent(r: IdempotencyBegin): Promise<IdempotencyOutcome> {
      return db.tx(async (t): Promise<IdempotencyOutcome> => {
        await t.run('DELETE FROM idempotency_keys WHERE created_at_ms < $1', [r.expiredBeforeMs]);
        for (;;) {
          // a concurrent claim of the same key waits on our insert, then finds our row
          const claimed = await t.run(`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, state, created_at_ms, expires_at_ms, owner)
            VALUES ($1, $2, $3, 'pending', $4, $5, $6) ON CONFLICT (key_id, idempotency_key) DO NOTHING`,
          [r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner]);
          if (claimed === 1) return { kind: 'started' };
          const row = await t.one<ClaimRow>(`SELECT k.request_hash, k.state, k.response_status, k.response_body, k.owner, k.expires_at_ms, ${OWNER_LEASE_COLUMNS}
            FROM idempotency_keys k ${joinOwnerLease('k')} WHERE k.key_id = $1 AND k.idempotency_key = $2 FOR UPDATE OF k`, [r.keyId, r.idempotencyKey]);
          if (!row) continue; // deleted between our insert and our read: claim it again
          if (row.state === 'pending' && claimIsDead(chargeOf(row), ownerLeaseOf(row), r.nowMs)) {
            // its call died (past its deadline, or its instance's lease ended); its charge is (or will be) given back: the claim is ours now
            await t.run(`UPDATE idempotency_keys SET request_hash = $3, state = 'pending', response_status = NULL, response_body = NULL,
              created_at_ms = $4, expires_at_ms = $5, owner = $6 WHERE key_id = $1 AND idempotency_key = $2`,
            [r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner]);
            return { kind: 'started' };
          }
          return answerIdempotent(toIdempotencyRecord(row), r.requestHash);
        }
      });
    },

    async abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void> {
      await db.q(`DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND state = 'pending'`, [keyId, idempotencyKey]);
    },
  };
}
