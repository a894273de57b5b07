/** How an Idempotency-Key claim already on record answers a new request, as a pure function. */

export interface IdempotencyRecord {
  requestHash: string;
  state: 'pending' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
}

export type IdempotencyAnswer =
  { kind: 'replay'; status: number; body: string } | { kind: 'in_progress' } | { kind: 'conflict' };

/** Another body under the same key is a conflict; a pending claim is in progress; a finished one is replayed. */
export function answerIdempotent(record: IdempotencyRecord, requestHash: string): IdempotencyAnswer {
  if (record.requestHash !== requestHash) return { kind: 'conflict' };
  if (record.state === 'pending') return { kind: 'in_progress' };
  return { kind: 'replay', status: record.responseStatus ?? 200, body: record.responseBody ?? 'null' };
}
