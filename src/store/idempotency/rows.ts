import type { IdempotencyRecord } from '../../billing/rules/idempotency.js';
import type { OwnerLeaseColumns } from '../owner-lease.js';

/** An idempotency_keys row with its owner's lease columns. */
export interface ClaimRow extends OwnerLeaseColumns {
  request_hash: string;
  state: 'pending' | 'done';
  response_status: number | null;
  response_body: string | null;
}

export const toIdempotencyRecord = (row: ClaimRow): IdempotencyRecord => ({
  requestHash: row.request_hash, state: row.state, responseStatus: row.response_status, responseBody: row.response_body,
});
