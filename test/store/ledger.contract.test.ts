/** The store contract for ledger: debits, refunds, settling, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { tsWorker } from '../helpers/ts-worker.js';
import { describeContract, freshDb, ledgerSum, liveKey, now, pending, server } from './harness.js';

describeContract('ledger', (kind) => {
  test('a debit is all or nothing and is written to the ledger; test and revoked keys cannot be debited', async () => {
    const store = await (await freshDb(kind)).open();
    const key = await liveKey(store, 10);
    const ok = await store.debit(key.id, 4, 'req-1', now, pending());
    assert.deepEqual(ok.ok && { balance: ok.balance }, { balance: 6 });
    assert.deepEqual(await store.debit(key.id, 7, 'req-2', now, pending()), { ok: false, balance: 6 });
    assert.equal(await ledgerSum(store, key.id), 6);
    assert.deepEqual(
      (await store.ledger(key.id)).map((e) => e.reason),
      ['admin_credit', 'debit'],
    );
    const test = await store.createKey({
      kind: 'test',
      keyHash: 'ht',
      last4: 'wxyz',
      email: null,
      initialStops: 0,
      reason: 'admin_credit',
      now,
    });
    assert.equal((await store.debit(test.id, 1, 'r', now, pending())).ok, false);
    const live = await store.createKey({
      kind: 'live',
      keyHash: 'hl',
      last4: 'wxyz',
      email: null,
      initialStops: 5,
      reason: 'admin_credit',
      now,
    });
    await store.revokeKey('hl', now);
    assert.equal((await store.debit(live.id, 1, 'r', now, pending())).ok, false);
  });

  test("the caller's request id is kept beside the service's own in the ledger, on debits and on their refunds", async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 10);
    const first = await store.debit(key.id, 2, 'server-1', now, pending(), 'client-1');
    const second = await store.debit(key.id, 3, 'server-2', now, { untilMs: 0, owner: 'gone' }, 'client-2');
    await store.debit(key.id, 1, 'server-3', now, pending());
    assert.ok(first.ok && second.ok);
    await store.refund(first.debitId, now);
    await store.recoverCharges({ now, by: 'sweeper' });
    const rows = (await store.ledger(key.id)).map((e) => [e.reason, e.delta, e.requestId, e.clientRequestId]);
    assert.deepEqual(rows, [
      ['admin_credit', 10, null, null],
      ['debit', -2, 'server-1', 'client-1'],
      ['debit', -3, 'server-2', 'client-2'],
      ['debit', -1, 'server-3', null],
      ['refund', 2, 'server-1', 'client-1'],
      ['refund', 3, 'server-2', 'client-2'],
    ]);
  });

  test('a refund happens exactly once per debit, even when several instances refund at once', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open(), await db.open()];
    const key = await liveKey(stores[0], 10);
    const debit = await stores[0].debit(key.id, 10, 'req-1', now, pending());
    assert.ok(debit.ok);
    const outcomes = await Promise.all([...stores, ...stores].map((s) => s.refund(debit.debitId, now)));
    assert.equal(outcomes.filter((o) => o.refunded).length, 1);
    assert.ok(outcomes.every((o) => o.balance === 10 || !o.refunded));
    assert.deepEqual(await stores[0].refund(debit.debitId, now), { refunded: false, balance: 10 });
    assert.equal(await ledgerSum(stores[0], key.id), 10);
    assert.deepEqual(
      (await stores[0].ledger(key.id)).map((e) => e.reason),
      ['admin_credit', 'debit', 'refund'],
    );
    await assert.rejects(stores[0].refund(key.id, now), /not a debit/);
  });

  test('50 stops, 10 parallel 10-stop debits from 10 connections: exactly 5 succeed, balance 0, ledger sums to it', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 50);
    const barrier = new SharedArrayBuffer(4);
    const workers = 10;
    const results = await Promise.all(
      Array.from(
        { length: workers },
        (_, index) =>
          new Promise<boolean>((resolve, reject) => {
            const worker = tsWorker(new URL('./debit-worker.ts', import.meta.url), {
              workerData: { location: db.location, keyId: key.id, stops: 10, barrier, workers, index },
            });
            worker.once('message', resolve);
            worker.once('error', reject);
          }),
      ),
    );
    assert.equal(results.filter(Boolean).length, 5);
    assert.equal((await store.listKeys())[0].balance, 0);
    const ledger = await store.ledger(key.id);
    assert.equal(
      ledger.reduce((s, e) => s + e.delta, 0),
      0,
    );
    assert.equal(ledger.filter((e) => e.reason === 'debit').length, 5);
  });

  test('settling is all or nothing: a debit whose Idempotency-Key claim was taken over stays pending, and is refunded', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    const nowMs = Date.now();
    await store.beginIdempotent({
      keyId: key.id,
      idempotencyKey: 'k',
      requestHash: 'h',
      nowMs,
      expiredBeforeMs: 0,
      pending: { untilMs: nowMs + 60_000, owner: 't' },
    });
    const debit = await store.debit(key.id, 6, 'req', now, pending());
    assert.ok(debit.ok);
    await store.abandonIdempotent(key.id, 'k', { untilMs: nowMs + 60_000, owner: 't' });
    assert.equal(
      await store.settleCharge({
        debitId: debit.debitId,
        idempotency: {
          keyId: key.id,
          idempotencyKey: 'k',
          claim: { untilMs: nowMs + 60_000, owner: 't' },
          status: 200,
          body: '{}',
        },
      }),
      false,
    );
    assert.deepEqual(await store.refund(debit.debitId, now), { refunded: true, balance: 100 });
  });
});
