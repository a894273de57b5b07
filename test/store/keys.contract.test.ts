/** The store contract for keys and console test keys, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ConsoleTestKeys } from '../../src/console/test-keys.js';
import { describeContract, freshDb, limits, now, purchase, rejected } from './harness.js';

describeContract('keys', (kind) => {
  test('keys: create, find by hash and last 4, list, revoke once', async () => {
    const store = await (await freshDb(kind)).open();
    const created = await store.createKey({
      kind: 'live',
      keyHash: 'hash-1',
      last4: 'wxyz',
      email: 'a@example.com',
      initialStops: 3,
      reason: 'purchase',
      now,
    });
    assert.deepEqual(created, {
      id: created.id,
      kind: 'live',
      last4: 'wxyz',
      email: 'a@example.com',
      balance: 3,
      createdAt: now.toISOString(),
      revokedAt: null,
    });
    assert.deepEqual(await store.findKeyByHash('hash-1'), created);
    assert.equal(await store.findKeyByHash('nope'), null);
    assert.deepEqual(
      (await store.findKeyByLast4('wxyz')).map((k) => k.id),
      [created.id],
    );
    assert.deepEqual(
      (await store.listKeys()).map((k) => k.id),
      [created.id],
    );
    assert.equal(await store.revokeKey('hash-1', now), true);
    assert.equal(await store.revokeKey('hash-1', now), false);
    assert.equal((await store.findKeyByHash('hash-1'))?.revokedAt, now.toISOString());
    assert.deepEqual(
      (await store.ledger(created.id)).map((e) => [e.delta, e.reason]),
      [[3, 'purchase']],
    );
    const test = await store.createKey({
      kind: 'test',
      keyHash: 'hash-t',
      last4: 'tttt',
      email: null,
      initialStops: 0,
      reason: 'admin_credit',
      now,
    });
    await assert.rejects(store.credit(test.id, 5, 'admin_credit', null, now), /only live keys/);
    await assert.rejects(store.credit(created.id, 0, 'admin_credit', null, now), RangeError);
  });

  test('console test keys: per-address and per-e-mail limits hold when instances issue at once', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open(), await db.open()];
    const consoles = stores.map((s) => new ConsoleTestKeys(s, { perIpPerDay: 4, perEmailPerDay: 2 }));
    const byIp = await Promise.allSettled(
      Array.from({ length: 9 }, (_, i) => consoles[i % 3].issue(`u${i}@example.com`, '203.0.113.7')),
    );
    assert.equal(byIp.filter((r) => r.status === 'fulfilled').length, 4);
    for (const r of byIp) if (r.status === 'rejected') rejected(r.reason, 429, 'rate_limited');
    const byEmail = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => consoles[i % 3].issue('Same@Example.com', `198.51.100.${i}`)),
    );
    assert.equal(byEmail.filter((r) => r.status === 'fulfilled').length, 2);
    const keys = await stores[0].listKeys();
    assert.equal(keys.length, 6);
    assert.ok(keys.every((k) => k.kind === 'test' && k.balance === 0));
  });
});
