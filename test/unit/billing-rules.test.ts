/** The billing rules the stores execute (src/billing/rules), as pure functions: no database. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  decideCredit,
  decideDebit,
  decideRefund,
  pickPurchaseKey,
  planKeyReplacement,
} from '../../src/billing/rules/charges.js';
import { answerIdempotent } from '../../src/billing/rules/idempotency.js';
import { decideConsoleIssue, decideSandboxReservation } from '../../src/billing/rules/quotas.js';
import {
  chargeIsGone,
  chargeIsStale,
  claimIsDead,
  holdsWhileGone,
  integrityOk,
  leaseHasExpired,
  leaseState,
} from '../../src/billing/rules/recovery.js';

const live = { id: 1, kind: 'live' as const, balance: 10, revokedAt: null, email: 'a@example.com' };

test('a debit needs an active live key whose balance covers every stop; all or nothing', () => {
  assert.deepEqual(decideDebit(live, 10), { ok: true, balance: 0 });
  assert.deepEqual(decideDebit(live, 11), { ok: false, balance: 10 });
  assert.deepEqual(decideDebit({ ...live, kind: 'test' }, 1), { ok: false, balance: 10 });
  assert.deepEqual(decideDebit({ ...live, revokedAt: '2026-01-01T00:00:00Z' }, 1), { ok: false, balance: 10 });
  assert.deepEqual(decideDebit(undefined, 1), { ok: false, balance: 0 });
});

test('a credit is a positive whole number of stops on an existing live key', () => {
  assert.equal(decideCredit(live, 1, 5), 15);
  assert.throws(() => decideCredit(live, 1, 0), RangeError);
  assert.throws(() => decideCredit(live, 1, 1.5), RangeError);
  assert.throws(() => decideCredit(undefined, 7, 5), /no key with id 7/);
  assert.throws(() => decideCredit({ ...live, kind: 'test' }, 1, 5), /only live keys hold a balance/);
});

test('only a debit is refunded, once, giving back what it took with its request ids', () => {
  const debit = { id: 4, keyId: 1, delta: -3, reason: 'debit', requestId: 'r', clientRequestId: 'c' };
  assert.deepEqual(decideRefund(debit, 4, false), {
    keyId: 1,
    delta: 3,
    reason: 'refund',
    requestId: 'r',
    clientRequestId: 'c',
    refundOf: 4,
  });
  assert.equal(decideRefund(debit, 4, true), null);
  assert.throws(() => decideRefund({ ...debit, reason: 'purchase' }, 4, false), /ledger entry 4 is not a debit/);
  assert.throws(() => decideRefund(undefined, 9, false), /ledger entry 9 is not a debit/);
});

test("a purchase credits the e-mail's most recent active live key; a replacement moves the whole balance", () => {
  const keys = [
    { ...live, id: 3 },
    { ...live, id: 9, revokedAt: 'x' },
    { ...live, id: 5 },
    { ...live, id: 8, kind: 'test' as const },
  ];
  assert.equal(pickPurchaseKey(keys)?.id, 5);
  assert.equal(pickPurchaseKey([]), null);
  const plan = planKeyReplacement(live, 1);
  assert.deepEqual(
    { moved: plan.moved, email: plan.email, tag: plan.tag(2) },
    { moved: 10, email: 'a@example.com', tag: 'replace:1->2' },
  );
  assert.throws(() => planKeyReplacement({ ...live, email: null }, 1), /no e-mail address/);
  assert.throws(() => planKeyReplacement({ ...live, revokedAt: 'x' }, 1), /revoked/);
});

test('sandbox: the minute cap first, then the day; console: per address, then per e-mail', () => {
  const caps = { stops: 5, callsPerMinute: 20, stopsPerDay: 200 };
  assert.deepEqual(decideSandboxReservation({ callsInWindow: 19, stopsToday: 195 }, caps), { ok: true });
  assert.deepEqual(decideSandboxReservation({ callsInWindow: 20, stopsToday: 300 }, caps), {
    ok: false,
    exceeded: 'minute',
  });
  assert.deepEqual(decideSandboxReservation({ callsInWindow: 0, stopsToday: 196 }, caps), {
    ok: false,
    exceeded: 'day',
  });
  const limits = { maxPerIp: 3, maxPerEmail: 2, nowMs: 1000 };
  assert.deepEqual(decideConsoleIssue({ n: 3, oldest: 10 }, { n: 5, oldest: 20 }, limits), {
    ok: false,
    exceeded: 'ip',
    oldestMs: 10,
  });
  assert.deepEqual(decideConsoleIssue({ n: 2, oldest: 10 }, { n: 2, oldest: null }, limits), {
    ok: false,
    exceeded: 'email',
    oldestMs: 1000,
  });
  assert.deepEqual(decideConsoleIssue({ n: 2, oldest: 10 }, { n: 1, oldest: 20 }, limits), { ok: true });
});

test('idempotency: another body conflicts, a pending claim is in progress, a finished one replays', () => {
  const done = { requestHash: 'h', state: 'done' as const, responseStatus: 200, responseBody: '{}' };
  assert.deepEqual(answerIdempotent(done, 'other'), { kind: 'conflict' });
  assert.deepEqual(answerIdempotent({ ...done, state: 'pending' }, 'h'), { kind: 'in_progress' });
  assert.deepEqual(answerIdempotent(done, 'h'), { kind: 'replay', status: 200, body: '{}' });
});

test("recovery: a live lease keeps its charges; an ended one loses them; past the deadline only the sweeper's own or an unleased owner's", () => {
  const charge = { owner: 'a', expiresAtMs: 100 };
  const liveLease = { endedAtMs: null, expiresAtMs: 500 };
  assert.equal(chargeIsGone(charge, liveLease, 200, 'b'), false);
  assert.equal(chargeIsGone(charge, liveLease, 200, 'a'), true);
  assert.equal(chargeIsGone(charge, { endedAtMs: 50, expiresAtMs: 60 }, 10, 'b'), true);
  assert.equal(chargeIsGone(charge, null, 200, 'b'), true);
  assert.equal(chargeIsGone(charge, null, 50, 'b'), false);
  assert.equal(chargeIsStale({ owner: 'a', expiresAtMs: 1000 }, { endedAtMs: null, expiresAtMs: 100 }, 200), true);
  assert.equal(chargeIsStale({ owner: 'a', expiresAtMs: 1000 }, liveLease, 200), false);
  assert.equal(claimIsDead({ owner: 'a', expiresAtMs: null }, liveLease, 200), false);
  assert.equal(claimIsDead({ owner: 'a', expiresAtMs: null }, { endedAtMs: 1, expiresAtMs: 1 }, 200), true);
  assert.equal(leaseHasExpired({ endedAtMs: null, expiresAtMs: 200 }, 200), true);
  assert.equal(leaseState({ endReason: null, endedAtMs: null, expiresAtMs: 200 }, 199), 'live');
  assert.equal(leaseState({ endReason: 'released', endedAtMs: 5, expiresAtMs: 200 }, 300), 'released');
  const holding = { pendingDebits: 1, sandboxReservations: 0, idempotencyClaims: 0 };
  assert.equal(holdsWhileGone({ ...holding, state: 'expired' }), true);
  assert.equal(holdsWhileGone({ ...holding, state: 'live' }), false);
  assert.equal(
    integrityOk({
      mismatches: [],
      expiredPendingDebits: 0,
      expiredSandboxReservations: 0,
      leases: [{ ...holding, state: 'live' }],
    }),
    true,
  );
  assert.equal(
    integrityOk({ mismatches: [{}], expiredPendingDebits: 0, expiredSandboxReservations: 0, leases: [] }),
    false,
  );
});
