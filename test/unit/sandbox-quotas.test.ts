import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { DomainError } from '../../src/errors.js';
import { errorHeaders } from '../../src/http/errors.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { manualClock, tempDir } from '../helpers/server.js';

const limits = { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 };

async function setup(start: string, path = join(tempDir(), 'sandbox.db')) {
  const clock = manualClock(start);
  const store = new SqliteStore(path);
  const billing = new Billing(store, { limits, clock });
  const { record } = await billing.issueKey('test');
  return { clock, store, billing, key: record, path };
}

function rejected(err: unknown, status: number, code: string): DomainError {
  assert.ok(err instanceof DomainError, `expected DomainError, got ${String(err)}`);
  assert.equal(err.status, status);
  assert.equal(err.code, code);
  return err;
}

test('more than 10 stops in one call is 400 sandbox_limit; 10 is fine', async () => {
  const { billing, key } = await setup('2026-06-01T10:00:00Z');
  await billing.reserveSandbox(key, 10, 'r1');
  await assert.rejects(billing.reserveSandbox(key, 11, 'r2'), (e) => !!rejected(e, 400, 'sandbox_limit'));
});

test('the 21st call within a rolling minute is 429 with Retry-After, limit and resetAt', async () => {
  const { billing, key, clock } = await setup('2026-06-01T10:00:00Z');
  for (let i = 0; i < 20; i++) {
    await billing.reserveSandbox(key, 2, `r${i}`);
    clock.advance(1000);
  }
  // first call at 10:00:00, now 10:00:20: the window frees up at 10:01:00
  const err = await billing.reserveSandbox(key, 2, 'r21').then(
    () => null,
    (e) => e,
  );
  const apiError = rejected(err, 429, 'sandbox_rate_limited');
  assert.equal(apiError.extra.limit, 20);
  assert.equal(apiError.extra.resetAt, '2026-06-01T10:01:00.000Z');
  assert.equal(errorHeaders(apiError)['Retry-After'], '40');
  assert.equal((await billing.sandboxQuotas(key)).sandboxCallsRemainingThisMinute, 0);
  clock.set('2026-06-01T10:01:00Z');
  assert.equal((await billing.sandboxQuotas(key)).sandboxCallsRemainingThisMinute, 1);
  await billing.reserveSandbox(key, 2, 'r22');
});

test('a rejected call does not count toward the minute; a failed call does, but gives its stops back', async () => {
  const { billing, key } = await setup('2026-06-01T10:00:00Z');
  await assert.rejects(billing.reserveSandbox(key, 11, 'too-big'));
  let quotas = await billing.sandboxQuotas(key);
  assert.deepEqual(quotas, { sandboxStopsRemainingToday: 200, sandboxCallsRemainingThisMinute: 20 });
  const reservation = await billing.reserveSandbox(key, 10, 'fails');
  quotas = await billing.sandboxQuotas(key);
  assert.deepEqual(quotas, { sandboxStopsRemainingToday: 190, sandboxCallsRemainingThisMinute: 19 });
  await billing.releaseSandbox(reservation);
  quotas = await billing.sandboxQuotas(key);
  assert.deepEqual(quotas, { sandboxStopsRemainingToday: 200, sandboxCallsRemainingThisMinute: 19 });
});

async function exhaustDay(
  billing: Billing,
  key: Awaited<ReturnType<typeof setup>>['key'],
  clock: ReturnType<typeof manualClock>,
) {
  for (let i = 0; i < 20; i++) {
    const r = await billing.reserveSandbox(key, 10, `d${i}`);
    await billing.consumeSandbox(r);
    clock.advance(61_000);
  }
}

test('winter: 200 stops per Paris day, reset at Paris midnight (23:00Z)', async () => {
  const { billing, key, clock } = await setup('2026-01-15T08:00:00Z');
  await exhaustDay(billing, key, clock);
  clock.set('2026-01-15T22:59:59Z'); // 23:59:59 in Paris (CET, UTC+1)
  const err = await billing.reserveSandbox(key, 2, 'late').then(
    () => null,
    (e) => e,
  );
  const apiError = rejected(err, 429, 'sandbox_rate_limited');
  assert.equal(apiError.extra.limit, 200);
  assert.equal(apiError.extra.resetAt, '2026-01-15T23:00:00.000Z');
  assert.equal(errorHeaders(apiError)['Retry-After'], '1');
  clock.set('2026-01-15T23:00:00Z'); // Paris midnight: a new day
  assert.equal((await billing.sandboxQuotas(key)).sandboxStopsRemainingToday, 200);
  await billing.reserveSandbox(key, 10, 'next-day');
});

test('summer: the Paris day ends at 22:00Z (CEST, UTC+2)', async () => {
  const { billing, key, clock } = await setup('2026-07-15T06:00:00Z');
  await exhaustDay(billing, key, clock);
  clock.set('2026-07-15T21:59:00Z');
  const apiError = rejected(
    await billing.reserveSandbox(key, 2, 'x').then(
      () => null,
      (e) => e,
    ),
    429,
    'sandbox_rate_limited',
  );
  assert.equal(apiError.extra.resetAt, '2026-07-15T22:00:00.000Z');
  assert.equal(errorHeaders(apiError)['Retry-After'], '60');
  clock.set('2026-07-15T22:00:00Z');
  assert.equal((await billing.sandboxQuotas(key)).sandboxStopsRemainingToday, 200);
});

test('a call that would pass the daily cap is refused whole', async () => {
  const { billing, key, clock } = await setup('2026-06-01T08:00:00Z');
  for (let i = 0; i < 19; i++) {
    await billing.consumeSandbox(await billing.reserveSandbox(key, 10, `a${i}`));
    clock.advance(61_000);
  }
  await billing.consumeSandbox(await billing.reserveSandbox(key, 5, 'b'));
  clock.advance(61_000);
  assert.equal((await billing.sandboxQuotas(key)).sandboxStopsRemainingToday, 5);
  rejected(
    await billing.reserveSandbox(key, 6, 'c').then(
      () => null,
      (e) => e,
    ),
    429,
    'sandbox_rate_limited',
  );
  await billing.reserveSandbox(key, 5, 'd');
});

test('quotas survive a reopen of the database', async () => {
  const first = await setup('2026-06-01T10:00:00Z');
  for (let i = 0; i < 3; i++)
    await first.billing.consumeSandbox(await first.billing.reserveSandbox(first.key, 10, `p${i}`));
  await first.store.close();
  const store = new SqliteStore(first.path);
  const billing = new Billing(store, { limits, clock: first.clock });
  assert.deepEqual(await billing.sandboxQuotas(first.key), {
    sandboxStopsRemainingToday: 170,
    sandboxCallsRemainingThisMinute: 17,
  });
  await store.close();
});
