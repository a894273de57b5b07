/** The store contract for sandbox quotas, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { errorHeaders } from '../../src/http/errors.js';
import { type Store } from '../../src/store/types.js';
import { manualClock } from '../helpers/server.js';
import { describeContract, freshDb, limits, now, pending, rejected } from './harness.js';

describeContract('sandbox', (kind) => {
  test('sandbox: the 21st call in a rolling minute is refused, also when 25 calls race from 3 instances', async () => {
    const db = await freshDb(kind);
    const clock = manualClock('2026-06-01T10:00:00Z');
    const stores = [await db.open(), await db.open(), await db.open()];
    const billings = stores.map((s) => new Billing(s, { limits, clock }));
    const { record } = await billings[0].issueKey('test');
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => billings[i % 3].reserveSandbox(record, 2, `r${i}`)),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 20);
    for (const r of results) if (r.status === 'rejected') rejected(r.reason, 429, 'sandbox_rate_limited');
    assert.deepEqual(await billings[1].sandboxQuotas(record), {
      sandboxStopsRemainingToday: 160,
      sandboxCallsRemainingThisMinute: 0,
    });
    clock.advance(20_000);
    const err = rejected(
      await billings[0].reserveSandbox(record, 2, 'late').then(
        () => null,
        (e) => e,
      ),
      429,
      'sandbox_rate_limited',
    );
    assert.equal(err.extra.resetAt, '2026-06-01T10:01:00.000Z');
    assert.equal(errorHeaders(err)['Retry-After'], '40');
    clock.set('2026-06-01T10:01:00Z');
    await billings[2].reserveSandbox(record, 2, 'next-minute');
  });

  if (kind === 'postgres') {
    test('sandbox: a call stamped a moment later by another instance, but reserved first, still counts', async () => {
      const db = await freshDb(kind);
      const [a, b] = [await db.open(), await db.open()];
      const key = await a.createKey({
        kind: 'test',
        keyHash: 'sk',
        last4: 'sand',
        email: null,
        initialStops: 0,
        reason: 'admin_credit',
        now,
      });
      const t0 = Date.parse('2026-06-01T10:00:00Z');
      const reserve = (s: Store, nowMs: number, i: number) =>
        s.reserveSandbox({
          keyId: key.id,
          nowMs,
          windowStartMs: nowMs - 59_999,
          day: '2026-06-01',
          requestId: `r${i}`,
          stops: 1,
          callsPerMinute: 20,
          stopsPerDay: 200,
          pending: { untilMs: nowMs + 60_000, owner: 'x' },
        });
      for (let i = 0; i < 20; i++) assert.equal((await reserve(a, t0 + 5, i)).ok, true);
      const late = await reserve(b, t0 + 3, 99); // read its clock before instance a, reached the database after
      assert.deepEqual(late.ok === false && late.exceeded, 'minute');
    });
  }

  test('sandbox: stops per Paris day (winter: reset at 23:00Z), refused whole; a released call gives its stops back', async () => {
    const store = await (await freshDb(kind)).open();
    const clock = manualClock('2026-01-15T08:00:00Z');
    const billing = new Billing(store, { limits, clock });
    const { record } = await billing.issueKey('test');
    const failed = await billing.reserveSandbox(record, 10, 'fails');
    assert.deepEqual(await billing.sandboxQuotas(record), {
      sandboxStopsRemainingToday: 190,
      sandboxCallsRemainingThisMinute: 19,
    });
    await billing.releaseSandbox(failed);
    assert.deepEqual(await billing.sandboxQuotas(record), {
      sandboxStopsRemainingToday: 200,
      sandboxCallsRemainingThisMinute: 19,
    });
    clock.advance(61_000);
    for (let i = 0; i < 19; i++) {
      await billing.consumeSandbox(await billing.reserveSandbox(record, 10, `d${i}`));
      clock.advance(61_000);
    }
    await billing.consumeSandbox(await billing.reserveSandbox(record, 5, 'five'));
    assert.equal((await billing.sandboxQuotas(record)).sandboxStopsRemainingToday, 5);
    clock.set('2026-01-15T22:59:59Z'); // 23:59:59 in Paris
    const err = rejected(
      await billing.reserveSandbox(record, 6, 'too-many').then(
        () => null,
        (e) => e,
      ),
      429,
      'sandbox_rate_limited',
    );
    assert.equal(err.extra.limit, 200);
    assert.equal(err.extra.resetAt, '2026-01-15T23:00:00.000Z');
    await billing.reserveSandbox(record, 5, 'fits');
    clock.set('2026-01-15T23:00:00Z'); // Paris midnight
    assert.equal((await billing.sandboxQuotas(record)).sandboxStopsRemainingToday, 200);
  });
});
