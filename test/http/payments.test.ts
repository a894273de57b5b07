/**
 * Packs, checkout, the Stripe webhook and key e-mails over real HTTP, with a
 * real SQLite file, a fake Stripe API and a real SMTP server (smtp-server).
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import type { Config } from '../../src/config.js';
import type { Store } from '../../src/store/types.js';
import type { CheckoutProvider } from '../../src/payments/types.js';
import type { OutboxOptions } from '../../src/mail/outbox.js';
import { startTestServer, tempDir } from '../helpers/server.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import { closedPort, parseMail, startFakeSmtp, type FakeSmtp } from '../fakes/smtp.js';

const WEBHOOK_SECRET = 'whsec_test_payments_secret';
const PUBLIC = 'https://routes.example.com';
const KEY_IN_MAIL = /svc_live_[A-Za-z0-9_-]{43}/;

interface Harness {
  url: string;
  config: Config;
  store: Store;
  checkout: CheckoutProvider | null;
  dir: string;
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any }>;
  /** Signs `event` as Stripe does and posts it to the webhook. */
  webhook(event: unknown, secret?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** The real app (startTestServer) with short outbox and Stripe timings. */
async function startHarness(env: Record<string, string> = {}, outbox: OutboxOptions = {}): Promise<Harness> {
  const dir = tempDir('ros-payments-');
  const server = await startTestServer({
    dir,
    env: { OUTBOX_DIR: join(dir, 'outbox'), PUBLIC_BASE_URL: PUBLIC, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, ...env },
    overrides: {
      payments: {
        outbox: { retryIntervalMs: 100, backoffBaseMs: 100, ...outbox },
        stripe: { timeoutMs: 3000, maxNetworkRetries: 0 },
        mail: { smtpTimeoutMs: 2000 },
      },
    },
  });
  const request: Harness['request'] = async (method, path, { key, body, raw, headers } = {}) => {
    const res = await server.request(method, path, { key, body, rawBody: raw, headers });
    return { status: res.status, body: res.body };
  };
  return {
    url: server.url,
    config: server.config,
    store: server.services.store,
    checkout: server.services.checkout,
    dir,
    request,
    async webhook(event, secret = WEBHOOK_SECRET) {
      const payload = JSON.stringify(event, null, 2);
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
      return request('POST', '/api/v1/webhooks/stripe', { raw: payload, headers: { 'Stripe-Signature': signature } });
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Creates a checkout through the API and returns the fake's session id. */
async function checkout(h: Harness, fake: FakeStripe, email: string, packId: string): Promise<string> {
  const before = fake.sessions.size;
  const res = await h.request('POST', '/api/v1/checkout', { body: { email, packId } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(fake.sessions.size, before + 1);
  return [...fake.sessions.keys()].at(-1)!;
}

async function stateSnapshot(store: Store) {
  return { keys: await store.listKeys(), payments: await store.listPayments(), mail: await store.listMail() };
}

describe('GET /api/v1/packs', () => {
  test('lists the four packs with the default prices, no key needed', async () => {
    const h = await startHarness();
    try {
      const res = await h.request('GET', '/api/v1/packs');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        packs: [
          { id: 'pack_2k', stops: 2000, priceCents: 2900, currency: 'eur' },
          { id: 'pack_10k', stops: 10000, priceCents: 9900, currency: 'eur' },
          { id: 'pack_50k', stops: 50000, priceCents: 39900, currency: 'eur' },
          { id: 'pack_250k', stops: 250000, priceCents: 149900, currency: 'eur' },
        ],
      });
    } finally {
      await h.close();
    }
  });

  test('prices and currency come from the config', async () => {
    const h = await startHarness({ PACK_10K_PRICE_CENTS: '12345', PAYMENTS_CURRENCY: 'usd' });
    try {
      const res = await h.request('GET', '/api/v1/packs');
      assert.deepEqual(res.body.packs[1], { id: 'pack_10k', stops: 10000, priceCents: 12345, currency: 'usd' });
      assert.ok(res.body.packs.every((p: { currency: string }) => p.currency === 'usd'));
    } finally {
      await h.close();
    }
  });
});

describe('POST /api/v1/checkout', () => {
  let fake: FakeStripe;
  before(async () => {
    fake = await startFakeStripe();
  });
  after(async () => {
    await fake.close();
  });
  afterEach(() => {
    fake.mode = 'ok';
  });

  test('503 payment_unavailable when Stripe is not configured', async () => {
    const h = await startHarness();
    try {
      assert.equal(h.checkout, null);
      const res = await h.request('POST', '/api/v1/checkout', { body: { email: 'a@example.com', packId: 'pack_2k' } });
      assert.equal(res.status, 503);
      assert.equal(res.body.error, 'payment_unavailable');
      assert.equal(typeof res.body.message, 'string');
    } finally {
      await h.close();
    }
  });

  test('creates a Stripe Checkout Session for the pack and answers its url', async () => {
    const h = await startHarness({ STRIPE_SECRET_KEY: 'sk_test_fake123', STRIPE_API_BASE: fake.url });
    try {
      const count = fake.requests.length;
      const res = await h.request('POST', '/api/v1/checkout', {
        body: { email: 'buyer@example.com', packId: 'pack_10k' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body), ['url']);
      assert.equal(fake.requests.length, count + 1);
      const sent = fake.requests.at(-1)!;
      assert.equal(sent.method, 'POST');
      assert.equal(sent.path, '/v1/checkout/sessions');
      assert.equal(sent.headers.authorization, 'Bearer sk_test_fake123');
      const f = sent.form;
      assert.equal(f.mode, 'payment');
      assert.equal(f.customer_email, 'buyer@example.com');
      assert.equal(f['line_items[0][quantity]'], '1');
      assert.equal(f['line_items[0][price_data][currency]'], 'eur');
      assert.equal(f['line_items[0][price_data][unit_amount]'], '9900');
      assert.match(f['line_items[0][price_data][product_data][name]'], /10,000 stops/);
      assert.equal(f['metadata[packId]'], 'pack_10k');
      assert.equal(f['metadata[stops]'], '10000');
      assert.equal(f.success_url, `${PUBLIC}/console/checkout/success?session_id={CHECKOUT_SESSION_ID}`);
      assert.equal(f.cancel_url, `${PUBLIC}/console/checkout/cancel`);
      const session = [...fake.sessions.values()].at(-1)!;
      assert.equal(res.body.url, session.url);
      assert.match(session.id, /^cs_test_/);
    } finally {
      await h.close();
    }
  });

  test('400 invalid_request for a bad body, Stripe not called', async () => {
    const h = await startHarness({ STRIPE_SECRET_KEY: 'sk_test_fake123', STRIPE_API_BASE: fake.url });
    try {
      const count = fake.requests.length;
      for (const body of [
        { email: 'nope', packId: 'pack_2k' },
        { email: 'a@example.com', packId: 'pack_1k' },
        { email: 'a@example.com' },
      ]) {
        const res = await h.request('POST', '/api/v1/checkout', { body });
        assert.equal(res.status, 400);
        assert.equal(res.body.error, 'invalid_request');
      }
      assert.equal(fake.requests.length, count);
    } finally {
      await h.close();
    }
  });

  test('503 payment_unavailable when Stripe answers 500', async () => {
    const h = await startHarness({ STRIPE_SECRET_KEY: 'sk_test_fake123', STRIPE_API_BASE: fake.url });
    try {
      fake.mode = 'error500';
      const count = fake.requests.length;
      const res = await h.request('POST', '/api/v1/checkout', { body: { email: 'a@example.com', packId: 'pack_2k' } });
      assert.equal(res.status, 503);
      assert.equal(res.body.error, 'payment_unavailable');
      assert.ok(fake.requests.length > count, 'Stripe was called');
      assert.doesNotMatch(res.body.message, /fake/, 'no internals from Stripe in the message');
    } finally {
      await h.close();
    }
  });

  test('503 payment_unavailable, fast, when Stripe cannot be reached', async () => {
    const port = await closedPort();
    const h = await startHarness({ STRIPE_SECRET_KEY: 'sk_test_fake123', STRIPE_API_BASE: `http://127.0.0.1:${port}` });
    try {
      const started = Date.now();
      const res = await h.request('POST', '/api/v1/checkout', { body: { email: 'a@example.com', packId: 'pack_2k' } });
      assert.equal(res.status, 503);
      assert.equal(res.body.error, 'payment_unavailable');
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    } finally {
      await h.close();
    }
  });
});

describe('POST /api/v1/webhooks/stripe', () => {
  let fake: FakeStripe;
  before(async () => {
    fake = await startFakeStripe();
  });
  after(async () => {
    await fake.close();
  });

  const stripeEnv = () => ({ STRIPE_SECRET_KEY: 'sk_test_fake123', STRIPE_API_BASE: fake.url });

  test('a paid session issues a live key, e-mailed over SMTP; replays credit nothing', async (t) => {
    const smtp = await startFakeSmtp();
    t.after(() => smtp.close());
    const h = await startHarness({
      ...stripeEnv(),
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Routes <billing@routes.example.com>',
    });
    try {
      const sessionId = await checkout(h, fake, 'buyer@example.com', 'pack_2k');
      const event = fake.event('checkout.session.completed', sessionId, { payment_status: 'paid' });
      const res = await h.webhook(event);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { received: true, result: 'credited', createdKey: true });

      const [mail] = await smtp.waitFor(1);
      assert.deepEqual(mail.to, ['buyer@example.com']);
      assert.equal(mail.from, 'billing@routes.example.com');
      assert.match(mail.headers.subject, /live API key/);
      const key = KEY_IN_MAIL.exec(mail.text)?.[0];
      assert.ok(key, `no key in the mail:\n${mail.text}`);
      const balance = await h.request('GET', '/api/v1/balance', { key });
      assert.equal(balance.status, 200);
      assert.deepEqual(balance.body, { stopsBalance: 2000 });

      // the stored message is blanked once sent; subject and recipient stay
      const stored = await until('outbox row marked sent', async () =>
        (await h.store.listMail()).find((m) => m.sentAt),
      );
      assert.equal(stored.body, '');
      assert.equal(stored.to, 'buyer@example.com');
      assert.equal(stored.kind, 'new_key');
      const payments = await h.store.listPayments();
      assert.equal(payments.length, 1);
      assert.equal(payments[0].stripeSessionId, sessionId);
      assert.equal(payments[0].stripeEventId, event.id);
      assert.equal(payments[0].amountCents, 2900);
      assert.equal(payments[0].stops, 2000);
      assert.equal(payments[0].keyLast4, key!.slice(-4));
      const keyRecord = (await h.store.listKeys())[0];
      assert.deepEqual(
        (await h.store.ledger(keyRecord.id)).map((l) => [l.delta, l.reason]),
        [[2000, 'purchase']],
      );

      // the same event again, then another event of the same session
      const replay = await h.webhook(event);
      assert.equal(replay.status, 200);
      assert.equal(replay.body.result, 'duplicate');
      const async = await h.webhook(
        fake.event('checkout.session.async_payment_succeeded', sessionId, { payment_status: 'paid' }),
      );
      assert.equal(async.status, 200);
      assert.equal(async.body.result, 'duplicate');
      assert.deepEqual((await h.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 2000 });
      assert.equal((await h.store.listKeys()).length, 1);
      assert.equal((await h.store.listPayments()).length, 1);
      await sleep(300);
      assert.equal(smtp.messages.length, 1, 'one e-mail only');
      assert.equal((await h.store.listMail()).length, 1);
    } finally {
      await h.close();
    }
  });

  test('a second purchase by the same e-mail tops up the existing key; the mail names only its last 4 characters', async (t) => {
    const smtp = await startFakeSmtp();
    t.after(() => smtp.close());
    const h = await startHarness({ ...stripeEnv(), SMTP_URL: smtp.url });
    try {
      const first = await checkout(h, fake, 'fleet@example.com', 'pack_2k');
      assert.equal(
        (await h.webhook(fake.event('checkout.session.completed', first, { payment_status: 'paid' }))).body.createdKey,
        true,
      );
      const key = KEY_IN_MAIL.exec((await smtp.waitFor(1))[0].text)![0];

      // same address in another case, paid asynchronously (SEPA): completed unpaid first, then succeeded
      const second = await checkout(h, fake, 'Fleet@Example.com', 'pack_10k');
      const unpaid = await h.webhook(fake.event('checkout.session.completed', second, { payment_status: 'unpaid' }));
      assert.equal(unpaid.status, 200);
      assert.equal(unpaid.body.result, 'ignored');
      assert.deepEqual((await h.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 2000 });
      const paid = await h.webhook(
        fake.event('checkout.session.async_payment_succeeded', second, { payment_status: 'paid' }),
      );
      assert.deepEqual(paid.body, { received: true, result: 'credited', createdKey: false });

      assert.deepEqual((await h.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 12000 });
      assert.equal((await h.store.listKeys()).length, 1, 'no second key');
      const mails = await smtp.waitFor(2);
      const topUp = mails[1];
      assert.deepEqual(
        topUp.to.map((a) => a.toLowerCase()),
        ['fleet@example.com'],
      );
      assert.doesNotMatch(topUp.raw, /svc_live_/, 'the top-up mail never holds a key');
      assert.ok(topUp.text.includes(key.slice(-4)), 'names the last 4 characters');
      assert.match(topUp.text, /New balance: 12,000 stops/);
      assert.ok(topUp.headers.subject.includes(key.slice(-4)));

      // a revoked key is not topped up: the next purchase issues a new key
      await h.store.revokeKey((await import('../../src/billing/keys.js')).hashApiKey(key), new Date());
      const third = await checkout(h, fake, 'fleet@example.com', 'pack_2k');
      assert.equal(
        (await h.webhook(fake.event('checkout.session.completed', third, { payment_status: 'paid' }))).body.createdKey,
        true,
      );
      const newKey = KEY_IN_MAIL.exec((await smtp.waitFor(3))[2].text)![0];
      assert.notEqual(newKey, key);
      assert.deepEqual((await h.request('GET', '/api/v1/balance', { key: newKey })).body, { stopsBalance: 2000 });
    } finally {
      await h.close();
    }
  });

  test('bad, missing or unconfigured signature: 400 invalid_signature and nothing changes', async () => {
    const h = await startHarness({ ...stripeEnv() });
    try {
      const sessionId = await checkout(h, fake, 'x@example.com', 'pack_2k');
      const event = fake.event('checkout.session.completed', sessionId, { payment_status: 'paid' });
      const payload = JSON.stringify(event);
      const good = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      const cases: Array<Record<string, string>> = [
        {},
        { 'Stripe-Signature': 'garbage' },
        { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }) },
        { 'Stripe-Signature': good.replace(/v1=[0-9a-f]{4}/, 'v1=0000') },
        // an old timestamp (replay attack) is refused too
        {
          'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({
            payload,
            secret: WEBHOOK_SECRET,
            timestamp: Math.floor(Date.now() / 1000) - 3600,
          }),
        },
      ];
      for (const headers of cases) {
        const res = await h.request('POST', '/api/v1/webhooks/stripe', { raw: payload, headers });
        assert.equal(res.status, 400, JSON.stringify(headers));
        assert.equal(res.body.error, 'invalid_signature');
      }
      // a body changed after signing
      const tampered = payload.replace('"pack_2k"', '"pack_250k"');
      assert.notEqual(tampered, payload);
      const res = await h.request('POST', '/api/v1/webhooks/stripe', {
        raw: tampered,
        headers: { 'Stripe-Signature': good },
      });
      assert.equal(res.status, 400);
      assert.deepEqual(await stateSnapshot(h.store), { keys: [], payments: [], mail: [] });

      // the good signature works on this very payload (so the cases above failed for their signature)
      const ok = await h.request('POST', '/api/v1/webhooks/stripe', {
        raw: payload,
        headers: { 'Stripe-Signature': good },
      });
      assert.equal(ok.status, 200);
      assert.equal((await h.store.listKeys()).length, 1);
    } finally {
      await h.close();
    }

    const noSecret = await startHarness({ ...stripeEnv(), STRIPE_WEBHOOK_SECRET: '' });
    try {
      const event = {
        id: 'evt_1',
        object: 'event',
        type: 'checkout.session.completed',
        data: {
          object: {
            id: 'cs_test_1',
            payment_status: 'paid',
            metadata: { packId: 'pack_2k' },
            customer_email: 'x@example.com',
          },
        },
      };
      const res = await noSecret.webhook(event);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_signature');
      assert.deepEqual(await stateSnapshot(noSecret.store), { keys: [], payments: [], mail: [] });
    } finally {
      await noSecret.close();
    }
  });

  test('other event types and sessions of other products are acknowledged and ignored', async () => {
    const h = await startHarness({ ...stripeEnv() });
    try {
      const sessionId = await checkout(h, fake, 'y@example.com', 'pack_2k');
      for (const event of [
        fake.event('checkout.session.expired', sessionId, { status: 'expired' }),
        fake.event('checkout.session.async_payment_failed', sessionId),
        fake.event('checkout.session.completed', sessionId, { payment_status: 'paid', metadata: {} }),
        {
          id: 'evt_pi',
          object: 'event',
          type: 'payment_intent.succeeded',
          data: { object: { id: 'pi_1', object: 'payment_intent' } },
        },
      ]) {
        const res = await h.webhook(event);
        assert.equal(res.status, 200);
        assert.equal(res.body.result, 'ignored');
      }
      assert.deepEqual(await stateSnapshot(h.store), { keys: [], payments: [], mail: [] });
    } finally {
      await h.close();
    }
  });

  test('SMTP down: the key and credit stand, the outbox keeps the mail with the key, and a retry delivers it once SMTP is up', async (t) => {
    const port = await closedPort();
    const h = await startHarness(
      { ...stripeEnv(), SMTP_URL: `smtp://127.0.0.1:${port}` },
      { retryIntervalMs: 100, backoffBaseMs: 200 },
    );
    let late: FakeSmtp | undefined;
    t.after(() => late?.close());
    try {
      const sessionId = await checkout(h, fake, 'late@example.com', 'pack_50k');
      const res = await h.webhook(fake.event('checkout.session.completed', sessionId, { payment_status: 'paid' }));
      assert.equal(res.status, 200);
      assert.equal(res.body.result, 'credited');

      const failed = await until('a failed attempt', async () =>
        (await h.store.listMail()).find((m) => m.attempts >= 1 && m.lastError),
      );
      assert.equal(failed.sentAt, null);
      const key = KEY_IN_MAIL.exec(failed.body)?.[0];
      assert.ok(key, 'the full key is kept in the outbox until sent');
      assert.deepEqual((await h.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 50000 });
      assert.ok(new Date(failed.nextAttemptAt).getTime() > Date.now() - 1000);

      late = await startFakeSmtp(port);
      const [mail] = await late.waitFor(1, 8000);
      assert.equal(KEY_IN_MAIL.exec(mail.text)?.[0], key);
      const sent = await until('the row marked sent', async () => (await h.store.listMail()).find((m) => m.sentAt));
      assert.equal(sent.body, '');
      assert.ok(sent.attempts >= 2);
      await sleep(500);
      assert.equal(late.messages.length, 1, 'delivered once');
    } finally {
      await h.close();
    }
  });

  test('without SMTP_URL the mail is written as an .eml file in OUTBOX_DIR', async () => {
    const h = await startHarness({ ...stripeEnv() });
    try {
      const sessionId = await checkout(h, fake, 'files@example.com', 'pack_2k');
      const res = await h.webhook(fake.event('checkout.session.completed', sessionId, { payment_status: 'paid' }));
      assert.equal(res.body.result, 'credited');
      const outboxDir = h.config.mail.outboxDir;
      const files = await until('an .eml file', () =>
        existsSync(outboxDir) && readdirSync(outboxDir).filter((f) => f.endsWith('.eml')).length > 0
          ? readdirSync(outboxDir).filter((f) => f.endsWith('.eml'))
          : null,
      );
      assert.equal(files.length, 1);
      const raw = readFileSync(join(outboxDir, files[0]), 'utf8');
      const mail = parseMail(raw);
      assert.match(mail.headers.to, /files@example\.com/);
      const key = KEY_IN_MAIL.exec(mail.text)?.[0];
      assert.ok(key);
      assert.deepEqual((await h.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 2000 });
      const stored = await until('row sent', async () => (await h.store.listMail()).find((m) => m.sentAt));
      assert.equal(stored.body, '');
    } finally {
      await h.close();
    }
  });
});
