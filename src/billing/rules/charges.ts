/**
 * The money rules of a key's balance, as pure functions: the stores read the rows, ask these functions what
 * to do, and execute the answer in one statement or one transaction (under the key's lock). Nothing here
 * knows SQL or HTTP.
 */

/** What a rule needs to know of a key. */
export interface BalanceHolder {
  id: number;
  kind: 'test' | 'live';
  balance: number;
  revokedAt: string | null;
  email?: string | null;
}

export type DebitDecision = { ok: true; balance: number } | { ok: false; balance: number };

/** A debit is allowed only on an active live key whose balance covers every stop; it is all or nothing. */
export function decideDebit(key: BalanceHolder | undefined, stops: number): DebitDecision {
  if (!key) return { ok: false, balance: 0 };
  if (key.kind !== 'live' || key.revokedAt !== null || key.balance < stops) return { ok: false, balance: key.balance };
  return { ok: true, balance: key.balance - stops };
}

/** A credit is a positive whole number of stops on an existing live key (revoked or not); returns the new balance. */
export function decideCredit(key: BalanceHolder | undefined, keyId: number, stops: number): number {
  if (!Number.isSafeInteger(stops) || stops <= 0) throw new RangeError('credit needs a positive whole number of stops');
  if (!key) throw new Error(`no key with id ${keyId}`);
  if (key.kind !== 'live') throw new Error('only live keys hold a balance');
  return key.balance + stops;
}

/** A ledger entry as the refund rule reads it. */
export interface DebitEntry {
  id: number;
  keyId: number;
  delta: number;
  reason: string;
  requestId: string | null;
  clientRequestId: string | null;
}

export interface RefundEntry {
  keyId: number;
  /** Stops given back: what the debit took. */
  delta: number;
  reason: 'refund';
  /** A refund carries its debit's ids, the caller's X-Request-Id included. */
  requestId: string | null;
  clientRequestId: string | null;
  refundOf: number;
}

/**
 * Only a debit can be refunded, at most once (the store enforces "once" with UNIQUE (refund_of)); the refund
 * gives back exactly what the debit took. Returns null when the debit was already refunded.
 */
export function decideRefund(
  debit: DebitEntry | undefined,
  debitId: number,
  alreadyRefunded: boolean,
): RefundEntry | null {
  if (!debit || debit.reason !== 'debit') throw new Error(`ledger entry ${debitId} is not a debit`);
  if (alreadyRefunded) return null;
  return refundOf(debit);
}

/** The refund row of a pending debit being given back by the recovery sweep (the debit is known to be one). */
export const refundOf = (debit: Omit<DebitEntry, 'reason'>): RefundEntry => ({
  keyId: debit.keyId,
  delta: -debit.delta,
  reason: 'refund',
  requestId: debit.requestId,
  clientRequestId: debit.clientRequestId,
  refundOf: debit.id,
});

/** A purchase credits the e-mail's most recent active live key; null: a new live key is created for it. */
export function pickPurchaseKey<K extends BalanceHolder>(keysOfEmail: K[]): K | null {
  const active = keysOfEmail.filter((k) => k.kind === 'live' && k.revokedAt === null);
  return active.reduce<K | null>((latest, k) => (latest === null || k.id > latest.id ? k : latest), null);
}

export interface KeyReplacementPlan {
  email: string;
  /** Stops moved from the old key to the new one (its whole balance); 0 moves nothing and writes no ledger row. */
  moved: number;
  /** The ledger allows no other reason: a transfer is an admin adjustment, tagged in request_id. */
  reason: 'admin_credit';
  /** The request_id tag of both transfer rows, naming the old and the new key. */
  tag(newKeyId: number): string;
}

/** Only an active live key with an e-mail can be replaced; its whole balance moves to the new key. */
export function planKeyReplacement(old: BalanceHolder | undefined, oldKeyId: number): KeyReplacementPlan {
  if (!old) throw new Error(`no key with id ${oldKeyId}`);
  if (old.kind !== 'live') throw new Error('only live keys can be replaced by e-mail');
  if (old.revokedAt) throw new Error('this key is revoked');
  if (!old.email) throw new Error('this key has no e-mail address');
  return {
    email: old.email,
    moved: old.balance,
    reason: 'admin_credit',
    tag: (newKeyId) => `replace:${old.id}->${newKeyId}`,
  };
}

/** The note left on the unsent e-mails of a replaced key (they would announce a dead key, and hold it in full). */
export const replacedKeyMailNote = (newKeyId: number): string => `cancelled: key replaced by key ${newKeyId}`;
