/** The payment store transactions and the outbox sender, on real SQLite files. */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { NewOutboxMessage, PurchaseRequest } from '../../src/store/types.js';
import { generateApiKey, hashApiKey, lastFour } from '../../src/billing/keys.js';
import { Outbox } from '../../src/mail/outbox.js';
import type { MailMessage, MailSender } from '../../src/mail/sender.js';
import { listPacks, PACK_STOPS } from '../../src/payments/packs.js';
import { paymentOpenApiPaths, stripeWebhookOpenApi } from '../../src/api/openapi/payments.js';
import { createStripeClient } from '../../src/payments/stripe.js';
import { loadConfig } from '../../src/config.js';

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ros-payments-unit-'));
  store = new SqliteStore(join(dir, 'service.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const material = () => {
  const key = generateApiKey('live');
  return { key, newKey: { keyHash: hashApiKey(key), last4: lastFour(key) } };
};

function purchase(overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
  const { key, newKey } = material();
  return {
    stripeEventId: `evt_${Math.random().toString(36).slice(2)}`,
    stripeSessionId: `cs_test_${Math.random().toString(36).slice(2)}`,
    email: 'buyer@example.com',
    packId: 'pack_2k',
    stops: 2000,
    amountCents: 2900,
    currency: 'eur',
    newKey,
    composeMail: ({ createdKey, key: record, balance }): NewOutboxMessage =>
      createdKey
        ? { kind: 'new_key', to: 'buyer@example.com', subject: 'key', body: `key ${key} balance ${balance}` }
        : {
            kind: 'top_up',
            to: 'buyer@example.com',
            subject: 'top-up',
            body: `key ending ${record.last4} balance ${balance}`,
          },
    now: new Date('2026-03-01T10:00:00Z'),
    ...overrides,
  };
}

describe('store.recordPurchase', () => {
  test('creates the key, ledger row, payment and outbox row together', async () => {
    const r = purchase();
    const outcome = await store.recordPurchase(r);
    assert.equal(outcome.kind, 'credited');
    if (outcome.kind !== 'credited') return;
    assert.equal(outcome.createdKey, true);
    assert.equal(outcome.balance, 2000);
    const key = await store.findKeyByHash(r.newKey.keyHash);
    assert.equal(key?.kind, 'live');
    assert.equal(key?.email, 'buyer@example.com');
    assert.equal(key?.balance, 2000);
    assert.deepEqual(
      (await store.ledger(key!.id)).map((l) => [l.delta, l.reason, l.requestId]),
      [[2000, 'purchase', r.stripeSessionId]],
    );
    const [payment] = await store.listPayments();
    assert.equal(payment.keyId, key!.id);
    assert.equal(payment.createdKey, true);
    const [mail] = await store.listMail();
    assert.equal(mail.id, outcome.outboxId);
    assert.equal(mail.keyId, key!.id);
    assert.equal(mail.nextAttemptAt, '2026-03-01T10:00:00.000Z');
    assert.equal(mail.sentAt, null);
  });

  test('a duplicate event id or session id credits nothing', async () => {
    const first = purchase();
    await store.recordPurchase(first);
    assert.deepEqual(await store.recordPurchase(purchase({ stripeEventId: first.stripeEventId })), {
      kind: 'duplicate',
      matched: 'event',
    });
    assert.deepEqual(await store.recordPurchase(purchase({ stripeSessionId: first.stripeSessionId })), {
      kind: 'duplicate',
      matched: 'session',
    });
    const keys = await store.listKeys();
    assert.equal(keys.length, 1);
    assert.equal(keys[0].balance, 2000);
    assert.equal((await store.listPayments()).length, 1);
    assert.equal((await store.listMail()).length, 1);
  });

  test('credits the most recent active live key of the e-mail (any case); ignores revoked, test and other keys', async () => {
    await store.createKey({
      kind: 'test',
      ...material().newKey,
      email: 'buyer@example.com',
      initialStops: 0,
      reason: 'admin_credit',
      now: new Date(),
    });
    const older = material();
    await store.createKey({
      kind: 'live',
      ...older.newKey,
      email: 'BUYER@example.com',
      initialStops: 5,
      reason: 'admin_credit',
      now: new Date(),
    });
    const newer = material();
    await store.createKey({
      kind: 'live',
      ...newer.newKey,
      email: 'buyer@example.com',
      initialStops: 7,
      reason: 'admin_credit',
      now: new Date(),
    });
    const revoked = material();
    await store.createKey({
      kind: 'live',
      ...revoked.newKey,
      email: 'buyer@example.com',
      initialStops: 0,
      reason: 'admin_credit',
      now: new Date(),
    });
    await store.revokeKey(revoked.newKey.keyHash, new Date());
    await store.createKey({
      kind: 'live',
      ...material().newKey,
      email: 'other@example.com',
      initialStops: 0,
      reason: 'admin_credit',
      now: new Date(),
    });

    const outcome = await store.recordPurchase(purchase({ email: 'Buyer@Example.com' }));
    assert.equal(outcome.kind, 'credited');
    if (outcome.kind !== 'credited') return;
    assert.equal(outcome.createdKey, false);
    assert.equal(outcome.key.last4, newer.newKey.last4);
    assert.equal(outcome.balance, 2007);
    assert.equal((await store.findKeyByHash(older.newKey.keyHash))?.balance, 5);
    assert.equal((await store.listKeys()).length, 5, 'no key created');
    const [mail] = await store.listMail();
    assert.equal(mail.kind, 'top_up');
    assert.match(mail.body, new RegExp(`ending ${newer.newKey.last4} balance 2007`));
  });

  test('all or nothing: a failure inside the transaction leaves no key, credit, payment or mail', async () => {
    const r = purchase({
      composeMail: () => {
        throw new Error('boom');
      },
    });
    await assert.rejects(store.recordPurchase(r), /boom/);
    assert.deepEqual(await store.listKeys(), []);
    assert.deepEqual(await store.listPayments(), []);
    assert.deepEqual(await store.listMail(), []);
    assert.equal(store.db.prepare('SELECT COUNT(*) FROM ledger').pluck().get(), 0);
    // and the same event can then be fulfilled
    assert.equal(
      (await store.recordPurchase(purchase({ stripeEventId: r.stripeEventId, stripeSessionId: r.stripeSessionId })))
        .kind,
      'credited',
    );
  });
});

describe('store.replaceKey', () => {
  test('moves the balance to a new key through ledger rows, revokes the old key and queues the mail, in one go', async () => {
    const old = material();
    const oldRecord = await store.createKey({
      kind: 'live',
      ...old.newKey,
      email: 'fleet@example.com',
      initialStops: 1234,
      reason: 'purchase',
      now: new Date(),
    });
    const fresh = material();
    const outcome = await store.replaceKey({
      oldKeyId: oldRecord.id,
      newKey: fresh.newKey,
      now: new Date(),
      composeMail: ({ newKey, balance }) => ({
        kind: 'replacement_key',
        to: newKey.email!,
        subject: 'replacement',
        body: `${fresh.key} ${balance}`,
      }),
    });
    assert.equal(outcome.moved, 1234);
    assert.equal(outcome.newKey.balance, 1234);
    assert.equal(outcome.newKey.email, 'fleet@example.com');
    const oldNow = await store.findKeyByHash(old.newKey.keyHash);
    assert.equal(oldNow?.balance, 0);
    assert.ok(oldNow?.revokedAt);
    // each balance equals the sum of its ledger
    for (const key of await store.listKeys()) {
      assert.equal(
        (await store.ledger(key.id)).reduce((s, l) => s + l.delta, 0),
        key.balance,
      );
    }
    const [mail] = await store.listMail();
    assert.equal(mail.kind, 'replacement_key');
    assert.equal(mail.to, 'fleet@example.com');
    assert.ok(mail.body.includes(fresh.key));
  });

  test('refuses a revoked key, a test key or a key without e-mail, changing nothing', async () => {
    const noMail = await store.createKey({
      kind: 'live',
      ...material().newKey,
      email: null,
      initialStops: 3,
      reason: 'purchase',
      now: new Date(),
    });
    const test = await store.createKey({
      kind: 'test',
      ...material().newKey,
      email: 'a@example.com',
      initialStops: 0,
      reason: 'admin_credit',
      now: new Date(),
    });
    const revokedM = material();
    const revoked = await store.createKey({
      kind: 'live',
      ...revokedM.newKey,
      email: 'a@example.com',
      initialStops: 0,
      reason: 'purchase',
      now: new Date(),
    });
    await store.revokeKey(revokedM.newKey.keyHash, new Date());
    for (const id of [noMail.id, test.id, revoked.id]) {
      await assert.rejects(
        store.replaceKey({
          oldKeyId: id,
          newKey: material().newKey,
          now: new Date(),
          composeMail: () => ({ kind: 'replacement_key', to: 'a@example.com', subject: 's', body: 'b' }),
        }),
      );
    }
    assert.equal((await store.listKeys()).length, 3);
    assert.deepEqual(await store.listMail(), []);
  });
});

/** A sender that fails while `down` is true and records what it sends. */
function scriptedSender() {
  const sent: MailMessage[] = [];
  const sender: MailSender & { down: boolean; sent: MailMessage[]; calls: number } = {
    mode: 'smtp',
    down: false,
    sent,
    calls: 0,
    async send(message) {
      sender.calls++;
      if (sender.down) throw new Error('connect ECONNREFUSED 127.0.0.1:25');
      sent.push(message);
      return { messageId: `<${sent.length}@test>` };
    },
    close() {},
  };
  return sender;
}

const silent = { info() {}, warn() {} };

describe('Outbox', () => {
  test('sends due messages once and blanks their body', async () => {
    const sender = scriptedSender();
    const outbox = new Outbox(store, sender, silent);
    await store.enqueueMail(
      { kind: 'new_key', to: 'a@example.com', subject: 'Your key', body: 'svc_live_secret' },
      null,
      new Date(),
    );
    assert.deepEqual(await outbox.kick(), { sent: 1, failed: 0 });
    assert.deepEqual(await outbox.kick(), { sent: 0, failed: 0 });
    assert.deepEqual(sender.sent, [{ to: 'a@example.com', subject: 'Your key', text: 'svc_live_secret' }]);
    const [row] = await store.listMail();
    assert.equal(row.body, '');
    assert.equal(row.subject, 'Your key');
    assert.equal(row.attempts, 1);
    assert.ok(row.sentAt);
    await outbox.close();
  });

  test('a failure keeps the message, records the error and backs off exponentially', async () => {
    let now = new Date('2026-03-01T10:00:00Z').getTime();
    const clock = () => new Date(now);
    const sender = scriptedSender();
    sender.down = true;
    const outbox = new Outbox(store, sender, silent, clock, { backoffBaseMs: 60_000, backoffMaxMs: 3_600_000 });
    await store.enqueueMail({ kind: 'new_key', to: 'a@example.com', subject: 's', body: 'the key' }, null, clock());
    assert.deepEqual(await outbox.kick(), { sent: 0, failed: 1 });
    let [row] = await store.listMail();
    assert.equal(row.attempts, 1);
    assert.match(row.lastError!, /ECONNREFUSED/);
    assert.equal(row.body, 'the key');
    assert.equal(row.nextAttemptAt, new Date(now + 60_000).toISOString());

    now += 30_000; // not due yet
    assert.deepEqual(await outbox.kick(), { sent: 0, failed: 0 });
    now += 30_000;
    assert.deepEqual(await outbox.kick(), { sent: 0, failed: 1 });
    [row] = await store.listMail();
    assert.equal(row.nextAttemptAt, new Date(now + 120_000).toISOString(), 'doubled');
    assert.equal(outbox.delayAfter(10), 3_600_000, 'capped');

    sender.down = false;
    assert.deepEqual(await outbox.retryAll(), { sent: 1, failed: 0 }, 'retryAll ignores the backoff');
    [row] = await store.listMail();
    assert.equal(row.attempts, 3);
    assert.equal(row.lastError, null);
    assert.equal(row.body, '');
    await outbox.close();
  });

  test('a claimed message is not taken by a second sender until its lease ends', async () => {
    const now = new Date();
    const id = await store.enqueueMail({ kind: 'top_up', to: 'a@example.com', subject: 's', body: 'b' }, null, now);
    const claimed = await store.claimMail(id, now, new Date(now.getTime() + 60_000));
    assert.equal(claimed?.id, id);
    assert.equal(await store.claimMail(id, now, new Date(now.getTime() + 60_000)), null);
    assert.deepEqual(await store.dueMail(now, 10), []);
    assert.deepEqual(
      await store.dueMail(new Date(now.getTime() + 60_000), 10),
      [id],
      'due again after the lease (the sender died)',
    );
  });

  test('concurrent kicks never send a message twice', async () => {
    const sender = scriptedSender();
    const outbox = new Outbox(store, sender, silent);
    for (let i = 0; i < 5; i++)
      await store.enqueueMail({ kind: 'top_up', to: `u${i}@example.com`, subject: 's', body: 'b' }, null, new Date());
    await Promise.all([outbox.kick(), outbox.kick(), outbox.kick()]);
    assert.equal(sender.sent.length, 5);
    assert.equal(sender.calls, 5);
    await outbox.close();
  });

  test('the periodic retry delivers without a kick', async () => {
    const sender = scriptedSender();
    const outbox = new Outbox(store, sender, silent, undefined, { retryIntervalMs: 30 });
    await store.enqueueMail({ kind: 'top_up', to: 'a@example.com', subject: 's', body: 'b' }, null, new Date());
    outbox.start();
    const deadline = Date.now() + 3000;
    while (sender.sent.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(sender.sent.length, 1);
    await outbox.close();
  });
});

describe('packs, Stripe client and OpenAPI paths', () => {
  test('stop counts are fixed; prices and currency from the config', () => {
    assert.deepEqual(PACK_STOPS, { pack_2k: 2000, pack_10k: 10000, pack_50k: 50000, pack_250k: 250000 });
    const config = loadConfig({ PACK_250K_PRICE_CENTS: '100000', PAYMENTS_CURRENCY: 'chf' });
    assert.deepEqual(listPacks(config.payments).at(-1), {
      id: 'pack_250k',
      stops: 250000,
      priceCents: 100000,
      currency: 'chf',
    });
  });

  test('no secret key: no client; STRIPE_API_BASE points it elsewhere', () => {
    assert.equal(createStripeClient(loadConfig({}).payments), null);
    assert.ok(
      createStripeClient(
        loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_API_BASE: 'http://127.0.0.1:9' }).payments,
      ),
    );
  });

  test('the OpenAPI paths describe packs; the Stripe webhook is a webhook, not a client operation', () => {
    assert.deepEqual(Object.keys(paymentOpenApiPaths).sort(), ['/api/v1/packs']);
    const webhook = stripeWebhookOpenApi as { post: { responses: Record<string, unknown> } };
    assert.ok(webhook.post.responses[400]);
  });
});
