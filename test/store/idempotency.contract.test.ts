/** The store contract for Idempotency-Key claims, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { after, test } from 'node:test';
import { type Store } from '../../src/store/types.js';
import { describeContract, freshDb, liveKey, now, pending } from './harness.js';

describeContract('idempotency', (kind) => {
  test('idempotency: started, in progress, conflict, replay after settle, free again after abandon; one claim when instances race', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open(), await db.open()];
    const key = await liveKey(stores[0], 100);
    const begin = (
      s: Store,
      idempotencyKey: string,
      requestHash: string,
      nowMs = Date.now(),
      untilMs = nowMs + 60_000,
      owner = 'a',
    ) =>
      s.beginIdempotent({
        keyId: key.id,
        idempotencyKey,
        requestHash,
        nowMs,
        expiredBeforeMs: nowMs - 86_400_000,
        pending: { untilMs, owner },
      });
    const t = Date.now();
    const claim = { untilMs: t + 60_000, owner: 'a' };
    const race = await Promise.all(
      Array.from({ length: 9 }, (_, i) => begin(stores[i % 3], 'k1', 'hash-a', t, claim.untilMs)),
    );
    assert.equal(race.filter((o) => o.kind === 'started').length, 1);
    assert.ok(race.every((o) => o.kind === 'started' || o.kind === 'in_progress'));
    assert.deepEqual(await begin(stores[1], 'k1', 'hash-b'), { kind: 'conflict' });
    const debit = await stores[0].debit(key.id, 3, 'req', now, pending());
    assert.ok(debit.ok);
    assert.equal(
      await stores[2].settleCharge({
        debitId: debit.debitId,
        idempotency: { keyId: key.id, idempotencyKey: 'k1', claim, status: 200, body: '{"ok":1}' },
      }),
      true,
    );
    assert.deepEqual(await begin(stores[1], 'k1', 'hash-a'), { kind: 'replay', status: 200, body: '{"ok":1}' });
    // abandon frees a pending claim only
    assert.deepEqual(await begin(stores[0], 'k2', 'h', t, claim.untilMs), { kind: 'started' });
    await stores[1].abandonIdempotent(key.id, 'k2', claim);
    assert.deepEqual(await begin(stores[2], 'k2', 'h'), { kind: 'started' });
    // a pending claim past its expiry belongs to a dead call: claimable again, even with another body
    const t0 = Date.now();
    assert.deepEqual(await begin(stores[0], 'k3', 'h1', t0, t0 + 1000), { kind: 'started' });
    assert.deepEqual(await begin(stores[1], 'k3', 'h2', t0 + 500), { kind: 'conflict' });
    assert.deepEqual(await begin(stores[1], 'k3', 'h2', t0 + 1000), { kind: 'started' });
    // a claim taken over (its call judged dead) belongs to the call that took it: the first call can
    // neither free it nor complete it with its own answer
    assert.deepEqual(await begin(stores[0], 'k4', 'h', t0, t0 + 1000, 'a'), { kind: 'started' });
    assert.deepEqual(await begin(stores[1], 'k4', 'h', t0 + 1000, t0 + 61_000, 'b'), { kind: 'started' });
    const first = { untilMs: t0 + 1000, owner: 'a' };
    const second = { untilMs: t0 + 61_000, owner: 'b' };
    await stores[0].abandonIdempotent(key.id, 'k4', first);
    assert.deepEqual(await begin(stores[2], 'k4', 'h', t0 + 2000, t0 + 62_000, 'c'), { kind: 'in_progress' });
    const settle = (s: Store, mark: typeof first, body: string) =>
      s.settleCharge({ idempotency: { keyId: key.id, idempotencyKey: 'k4', claim: mark, status: 200, body } });
    assert.equal(await settle(stores[0], first, '{"from":"a"}'), false);
    assert.equal(await settle(stores[1], second, '{"from":"b"}'), true);
    assert.deepEqual(await begin(stores[2], 'k4', 'h', t0 + 3000), {
      kind: 'replay',
      status: 200,
      body: '{"from":"b"}',
    });
    // records older than the TTL are forgotten
    assert.deepEqual(await begin(stores[0], 'k1', 'hash-c', Date.now() + 2 * 86_400_000), { kind: 'started' });
  });

  test("leases: an Idempotency-Key claim is in progress while its instance's lease lives, claimable again once the lease has ended", async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    const t0 = Date.UTC(2026, 5, 1, 10);
    await store.acquireLease({ instanceId: 'claimer', host: 'h', pid: 1, port: 3000 }, new Date(t0), t0 + 10_000);
    const begin = (nowMs: number, owner: string) =>
      store.beginIdempotent({
        keyId: key.id,
        idempotencyKey: 'k',
        requestHash: 'h',
        nowMs,
        expiredBeforeMs: 0,
        pending: { untilMs: nowMs + 35_000, owner },
      });
    assert.deepEqual(await begin(t0, 'claimer'), { kind: 'started' });
    assert.deepEqual(
      await begin(t0 + 20_000, 'other'),
      { kind: 'in_progress' },
      'an expired lease not yet settled keeps its claim',
    );
    await db.query(
      kind === 'sqlite'
        ? `UPDATE instance_leases SET ended_at_ms = ?, end_reason = 'settled', ended_by = 'x'`
        : `UPDATE instance_leases SET ended_at_ms = $1, end_reason = 'settled', ended_by = 'x'`,
      [t0 + 20_000],
    );
    assert.deepEqual(await begin(t0 + 20_001, 'other'), { kind: 'started' });
  });
});
