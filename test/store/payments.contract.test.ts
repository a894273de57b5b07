/** The store contract for checkout payments and key replacement, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { describeContract, freshDb, ledgerSum, material, now, pending, purchase } from './harness.js';

describeContract('payments', (kind) => {
  test('purchases: one payment per Stripe event and per session, also when the same event reaches several instances at once', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open(), await db.open()];
    const first = purchase();
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stores[i % 3].recordPurchase({ ...first, newKey: material().newKey })),
    );
    assert.equal(outcomes.filter((o) => o.kind === 'credited').length, 1);
    assert.ok(outcomes.every((o) => o.kind === 'credited' || (o.kind === 'duplicate' && o.matched === 'event')));
    assert.deepEqual(await stores[1].recordPurchase(purchase({ stripeSessionId: first.stripeSessionId })), {
      kind: 'duplicate',
      matched: 'session',
    });
    // two different sessions of one new address at once: one key, credited twice
    const both = await Promise.all([
      stores[0].recordPurchase(purchase({ email: 'new@example.com' })),
      stores[1].recordPurchase(purchase({ email: 'NEW@example.com' })),
    ]);
    assert.deepEqual(both.map((o) => o.kind === 'credited' && o.createdKey).sort(), [false, true]);
    const keys = await stores[2].listKeys();
    assert.equal(keys.length, 2);
    assert.deepEqual(
      keys.map((k) => k.balance),
      [2000, 4000],
    );
    assert.equal((await stores[2].listPayments()).length, 3);
    assert.equal((await stores[2].listMail()).length, 3);
    const [payment] = await stores[2].listPayments();
    assert.deepEqual(
      { createdKey: payment.createdKey, stops: payment.stops, at: payment.createdAt },
      { createdKey: true, stops: 2000, at: '2026-03-01T10:00:00.000Z' },
    );
    for (const k of keys) assert.equal(await ledgerSum(stores[0], k.id), k.balance);
  });

  test('purchases: the most recent active live key of the e-mail (any case) is credited; a failure leaves nothing', async () => {
    const store = await (await freshDb(kind)).open();
    await store.createKey({
      kind: 'test',
      ...material().newKey,
      email: 'buyer@example.com',
      initialStops: 0,
      reason: 'admin_credit',
      now,
    });
    await store.createKey({
      kind: 'live',
      ...material().newKey,
      email: 'BUYER@example.com',
      initialStops: 5,
      reason: 'admin_credit',
      now,
    });
    const newer = material();
    await store.createKey({
      kind: 'live',
      ...newer.newKey,
      email: 'buyer@example.com',
      initialStops: 7,
      reason: 'admin_credit',
      now,
    });
    const revoked = material();
    await store.createKey({
      kind: 'live',
      ...revoked.newKey,
      email: 'buyer@example.com',
      initialStops: 0,
      reason: 'admin_credit',
      now,
    });
    await store.revokeKey(revoked.newKey.keyHash, now);
    const outcome = await store.recordPurchase(purchase({ email: 'Buyer@Example.com' }));
    assert.ok(
      outcome.kind === 'credited' &&
        !outcome.createdKey &&
        outcome.key.last4 === newer.newKey.last4 &&
        outcome.balance === 2007,
    );
    const failing = purchase({
      email: 'other@example.com',
      composeMail: () => {
        throw new Error('boom');
      },
    });
    await assert.rejects(store.recordPurchase(failing), /boom/);
    assert.equal((await store.listKeys()).length, 4);
    assert.equal((await store.listPayments()).length, 1);
    assert.equal(
      (
        await store.recordPurchase(
          purchase({ stripeEventId: failing.stripeEventId, stripeSessionId: failing.stripeSessionId }),
        )
      ).kind,
      'credited',
    );
  });

  test('findPaymentBySession: the payment of a session and when its e-mail was sent; a top-up reports its own e-mail', async () => {
    const store = await (await freshDb(kind)).open();
    assert.equal(await store.findPaymentBySession('cs_test_unknown'), null);
    const first = purchase();
    const created = await store.recordPurchase(first);
    assert.ok(created.kind === 'credited');
    const pending = await store.findPaymentBySession(first.stripeSessionId);
    assert.deepEqual(
      pending && {
        stops: pending.stops,
        createdKey: pending.createdKey,
        keyLast4: pending.keyLast4,
        mailSentAt: pending.mailSentAt,
      },
      { stops: 2000, createdKey: true, keyLast4: created.key.last4, mailSentAt: null },
    );
    await store.markMailSent(created.outboxId, new Date('2026-03-01T10:00:05Z'));
    assert.equal(
      new Date((await store.findPaymentBySession(first.stripeSessionId))!.mailSentAt!).toISOString(),
      '2026-03-01T10:00:05.000Z',
    );
    const second = purchase({ now: new Date('2026-03-02T09:00:00Z') });
    await store.recordPurchase(second);
    const topUp = await store.findPaymentBySession(second.stripeSessionId);
    assert.equal(topUp?.createdKey, false);
    assert.equal(topUp?.mailSentAt, null, "the top-up e-mail is not the first purchase's");
  });

  test('replaceKey moves the balance through ledger rows, revokes the old key, cancels its unsent mail', async () => {
    const store = await (await freshDb(kind)).open();
    const old = material();
    const oldRecord = await store.createKey({
      kind: 'live',
      ...old.newKey,
      email: 'fleet@example.com',
      initialStops: 1234,
      reason: 'purchase',
      now,
    });
    await store.enqueueMail(
      { kind: 'new_key', to: 'fleet@example.com', subject: 's', body: old.key },
      oldRecord.id,
      now,
    );
    const fresh = material();
    const outcome = await store.replaceKey({
      oldKeyId: oldRecord.id,
      newKey: fresh.newKey,
      now,
      composeMail: ({ newKey, balance }) => ({
        kind: 'replacement_key',
        to: newKey.email!,
        subject: 'replacement',
        body: `${fresh.key} ${balance}`,
      }),
    });
    assert.equal(outcome.moved, 1234);
    assert.equal(outcome.newKey.balance, 1234);
    assert.ok(outcome.oldKey.revokedAt);
    for (const key of await store.listKeys()) assert.equal(await ledgerSum(store, key.id), key.balance);
    const mail = await store.listMail();
    assert.deepEqual(
      mail.map((m) => [m.kind, m.body === '', m.cancelledAt !== null]),
      [
        ['new_key', true, true],
        ['replacement_key', false, false],
      ],
    );
    await assert.rejects(
      store.replaceKey({
        oldKeyId: oldRecord.id,
        newKey: material().newKey,
        now,
        composeMail: () => ({ kind: 'replacement_key', to: 'x', subject: 's', body: 'b' }),
      }),
      /revoked/,
    );
  });

  test('a purchase racing a key replacement for the same e-mail credits the replacement key, not a third key', async () => {
    const db = await freshDb(kind);
    const [a, b] = [await db.open(), await db.open()];
    for (let round = 0; round < 5; round++) {
      const email = `race${round}@example.com`;
      const old = await a.createKey({
        kind: 'live',
        ...material().newKey,
        email,
        initialStops: 10,
        reason: 'purchase',
        now,
      });
      const [replaced, bought] = await Promise.all([
        a.replaceKey({
          oldKeyId: old.id,
          newKey: material().newKey,
          now,
          composeMail: () => ({ kind: 'replacement_key', to: email, subject: 's', body: 'b' }),
        }),
        b.recordPurchase(purchase({ email })),
      ]);
      assert.equal(bought.kind, 'credited');
      const active = (await b.listKeys()).filter((k) => k.email === email && !k.revokedAt);
      assert.equal(active.length, 1, 'one active key for the address');
      assert.equal(active[0].id, replaced.newKey.id);
      assert.equal(active[0].balance, 2010);
    }
  });
});
