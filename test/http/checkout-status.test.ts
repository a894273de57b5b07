/**
 * What the console learns about payments: whether they are on (to offer packs
 * or say how to enable them), and the state of a checkout session for the
 * success page, from the store (fulfilled) or from Stripe (not yet fulfilled).
 */
import { strict as assert } from 'node:assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

describe('payments off', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  test('GET /console/api/payments says so; every session is unknown', async () => {
    const res = await server.request('GET', '/console/api/payments');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { enabled: false });
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual((await server.request('GET', '/console/api/checkout-sessions/cs_test_abc')).body, {
      state: 'unknown',
    });
  });
});

describe('payments on', () => {
  const secret = 'whsec_status_test';
  let dir: string;
  let stripe: FakeStripe;
  let server: TestServer;
  before(async () => {
    stripe = await startFakeStripe();
    dir = tempDir('ros-checkout-status-');
    server = await startTestServer({
      dir,
      env: {
        STRIPE_SECRET_KEY: 'sk_test_status',
        STRIPE_API_BASE: stripe.url,
        STRIPE_WEBHOOK_SECRET: secret,
        OUTBOX_DIR: join(dir, 'outbox'),
      },
    });
  });
  after(async () => {
    await server.close();
    await stripe.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newSession = async (email = 'dispatch@example.com', packId = 'pack_10k') => {
    const res = await server.request('POST', '/api/v1/checkout', { body: { email, packId } });
    return /cs_test_\w+/.exec(res.body.url)![0];
  };
  const status = async (id: string) => {
    const res = await server.request('GET', `/console/api/checkout-sessions/${encodeURIComponent(id)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const fulfil = async (id: string) => {
    const payload = JSON.stringify(stripe.event('checkout.session.completed', id, { payment_status: 'paid' }));
    const res = await server.request('POST', '/api/v1/webhooks/stripe', {
      rawBody: payload,
      headers: { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) },
    });
    assert.equal(res.body.result, 'credited');
  };

  test('GET /console/api/payments: enabled', async () => {
    assert.deepEqual((await server.request('GET', '/console/api/payments')).body, { enabled: true });
  });

  test('a session goes open → confirming (Stripe says paid) → paid (the webhook came), with the key and its e-mail', async () => {
    const id = await newSession();
    assert.deepEqual(await status(id), { state: 'open', stops: 10000, emailHint: 'd…h@example.com' });
    Object.assign(stripe.sessions.get(id)!, { status: 'complete', payment_status: 'paid' });
    assert.deepEqual(await status(id), { state: 'confirming', stops: 10000, emailHint: 'd…h@example.com' });
    await fulfil(id);
    await server.services.outbox.kick();
    const key = (await server.services.store.listKeys()).find((k) => k.kind === 'live')!;
    assert.deepEqual(await status(id), {
      state: 'paid',
      stops: 10000,
      emailHint: 'd…h@example.com',
      keyLast4: key.last4,
      createdKey: true,
      mailSent: true,
    });
    // a second pack for the same address tops the key up
    const again = await newSession('Dispatch@example.com', 'pack_2k');
    await fulfil(again);
    const topUp = await status(again);
    assert.equal(topUp.state, 'paid');
    assert.equal(topUp.createdKey, false);
    assert.equal(topUp.keyLast4, key.last4);
  });

  test('delayed payment methods are processing; an expired page is expired', async () => {
    const delayed = await newSession();
    Object.assign(stripe.sessions.get(delayed)!, { status: 'complete', payment_status: 'unpaid' });
    assert.equal((await status(delayed)).state, 'processing');
    const expired = await newSession();
    Object.assign(stripe.sessions.get(expired)!, { status: 'expired' });
    assert.equal((await status(expired)).state, 'expired');
  });

  test('an id Stripe does not know, or that is not a session id, is unknown (malformed ids never reach Stripe)', async () => {
    assert.deepEqual(await status('cs_test_doesnotexist'), { state: 'unknown' });
    const before = stripe.requests.length;
    for (const id of ['nope', 'cs_test_', 'cs_test_../../v1/customers', 'pi_123'])
      assert.deepEqual(await status(id), { state: 'unknown' });
    assert.equal(stripe.requests.length, before);
  });

  test('Stripe failing: 503 payment_unavailable, saying the key is e-mailed anyway', async () => {
    const id = await newSession();
    stripe.mode = 'error500';
    try {
      const res = await server.request('GET', `/console/api/checkout-sessions/${id}`);
      assert.equal(res.status, 503);
      assert.equal(res.body.error, 'payment_unavailable');
      assert.match(res.body.message, /e-mailed anyway/);
    } finally {
      stripe.mode = 'ok';
    }
  });
});
