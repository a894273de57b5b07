/** The Idempotency-Key subject on SQLite. */
import { answerIdempotent } from '../../billing/rules/idempotency.js';
import { claimIsDead } from '../../billing/rules/recovery.js';
import { OWNER_LEASE_COLUMNS, chargeOf, joinOwnerLease, ownerLeaseOf } from '../owner-lease.js';
import type { SqliteDb } from '../sqlite-db.js';
import { toIdempotencyRecord, type ClaimRow } from './rows.js';
import type { IdempotencyBegin, IdempotencyOutcome, IdempotencyStore } from './types.js';

export function sqliteIdempotency(d: SqliteDb): IdempotencyStore {
  return {
    async beginIdempotent(r: IdempotencyBegin): Promise<IdempotencyOutcome> {
      return d.write((): IdempotencyOutcome => {
        d.run('DELETE FROM idempotency_keys WHERE created_at_ms < ?', r.expiredBeforeMs);
        let row = d.get<ClaimRow>(`SELECT k.*, ${OWNER_LEASE_COLUMNS} FROM idempotency_keys k ${joinOwnerLease('k')}
          WHERE k.key_id = ? AND k.idempotency_key = ?`, r.keyId, r.idempotencyKey);
        if (row && row.state === 'pending' && claimIsDead(chargeOf(row), ownerLeaseOf(row), r.nowMs)) {
          d.run('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?', r.keyId, r.idempotencyKey); // its call died; its charge is (or will be) given back
          row = undefined;
        }
        if (!row) {
          d.run(`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, state, created_at_ms, expires_at_ms, owner)
            VALUES (?, ?, ?, 'pending', ?, ?, ?)`, r.keyId, r.idempotencyKey, r.requestHash, r.nowMs, r.pending.untilMs, r.pending.owner);
          return { kind: 'started' };
        }
        return answerIdempotent(toIdempotencyRecord(row), r.requestHash);
      });
    },

    async abandonIdempotent(keyId: number, idempotencyKey: string): Promise<void> {
      await d.attempt(() => d.run(`DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND state = 'pending'`, keyId, idempotencyKey));
    },
  };
}
