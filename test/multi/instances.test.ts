/**
 * Several service instances, one PostgreSQL database: three real server
 * processes (src/main.ts, as `npm start` runs it) with the same DATABASE_URL,
 * distinct PORT (and each its own instance lease), started together on an empty database (their
 * migrations race under the advisory lock). Requests are spread over them.
 */
import { strict as assert } from 'node:assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { Billing } from '../../src/billing/billing.js';
import { readMigrations } from '../../src/store/migrate.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { coordinateStops, PARIS_START, tempDir } from '../helpers/server.js';

const WEBHOOK_SECRET = 'whsec_test_multi_instances';
const INSTANCES = 3;

let pgServer: PostgresServer;
let instances: ServiceProcess[] = [];
let store: PostgresStore;
let billing: Billing;
let dir: string;

before(async () => {
  pgServer = await startPostgres();
  const url = await pgServer.createDatabase('multi');
  dir = tempDir('ros-multi-');
  instances = await Promise.all(
    Array.from({ length: INSTANCES }, (_, i) =>
      startServiceProcess({
        DATABASE_URL: url,
        DATABASE_PATH: join(dir, `unused-${i}.db`),
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        OUTBOX_DIR: join(dir, 'outbox'),
        SOLVER_POOL_SIZE: '1',
        SOLVER_TIME_LIMIT_MS: '50',
        LOG_LEVEL: 'warn',
      }),
    ),
  );
  store = await PostgresStore.open(url);
  billing = new Billing(store, { limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 } });
});

after(async () => {
  await Promise.all(
    instances.map(async (p) => {
      p.child.kill('SIGTERM');
      await p.exited;
    }),
  );
  await store?.close();
  await pgServer?.stop();
});

async function optimize(
  instance: ServiceProcess,
  key: string,
  stops: number,
  seed: number,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${instance.url}/api/v1/optimize`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ start: PARIS_START, stops: coordinateStops(stops, seed) }),
  });
  return { status: res.status, body: await res.json() };
}

describe(`${INSTANCES} instances sharing one PostgreSQL database`, () => {
  test('the instances applied the migrations once between them and all answer ready', async () => {
    const versions = await store.pool.query('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(
      versions.rows.map((r) => r.version),
      readMigrations(new URL('../../src/store/migrations/postgres/', import.meta.url).pathname).map((m) => m.version),
    );
    const leases = (await store.checkIntegrity(new Date())).leases;
    assert.deepEqual(
      leases.map((l) => l.state),
      ['live', 'live', 'live'],
      'one lease per instance',
    );
    assert.deepEqual(new Set(leases.map((l) => l.pid)), new Set(instances.map((p) => p.child.pid)));
    for (const instance of instances) assert.equal((await fetch(`${instance.url}/readyz`)).status, 200);
  });

  test('a live key with 50 stops, 30 parallel 5-stop calls spread over the instances: exactly 10 succeed, balance 0, ledger sums to 0', async () => {
    const { key, record } = await billing.issueKey('live', { stops: 50 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => optimize(instances[i % INSTANCES], key, 5, i + 1)),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 10, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 402).length, 20, JSON.stringify(statuses));
    for (const r of results) if (r.status === 402) assert.equal(r.body.error, 'insufficient_stops');
    const now = (await store.listKeys()).find((k) => k.id === record.id)!;
    assert.equal(now.balance, 0);
    const ledger = await store.ledger(record.id);
    assert.equal(
      ledger.reduce((s, e) => s + e.delta, 0),
      0,
    );
    assert.equal(
      ledger.filter((e) => e.reason === 'debit').length - ledger.filter((e) => e.reason === 'refund').length,
      10,
    );
    const integrity = await store.checkIntegrity(new Date());
    assert.equal(integrity.mismatches.length, 0, JSON.stringify(integrity));
  });

  test('the sandbox per-minute cap holds across instances: 25 calls of one test key, exactly 20 succeed', async () => {
    const { key } = await billing.issueKey('test');
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => optimize(instances[i % INSTANCES], key, 2, 100 + i)),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 20, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 5, JSON.stringify(statuses));
    for (const r of results) if (r.status === 429) assert.equal(r.body.error, 'sandbox_rate_limited');
  });

  test('a replayed Stripe webhook delivered to several instances at once credits once', async () => {
    const event = {
      id: 'evt_multi_1',
      object: 'event',
      type: 'checkout.session.completed',
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: 'cs_test_multi_1',
          object: 'checkout.session',
          payment_status: 'paid',
          status: 'complete',
          metadata: { packId: 'pack_2k' },
          customer_email: 'fleet@example.com',
          amount_total: 2900,
          currency: 'eur',
        },
      },
    };
    const payload = JSON.stringify(event);
    const deliver = async (instance: ServiceProcess) => {
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      const res = await fetch(`${instance.url}/api/v1/webhooks/stripe`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
        body: payload,
      });
      return { status: res.status, body: (await res.json()) as { result?: string } };
    };
    const results = await Promise.all([
      deliver(instances[0]),
      deliver(instances[1]),
      deliver(instances[2]),
      deliver(instances[0]),
      deliver(instances[1]),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200, 200, 200],
      JSON.stringify(results),
    );
    assert.deepEqual(results.map((r) => r.body.result).sort(), [
      'credited',
      'duplicate',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    const payments = await store.listPayments();
    assert.equal(payments.filter((p) => p.stripeEventId === 'evt_multi_1').length, 1);
    const keys = (await store.listKeys()).filter((k) => k.email === 'fleet@example.com');
    assert.deepEqual(
      keys.map((k) => k.balance),
      [2000],
    );
    // the new-key e-mail goes out once, whichever instance sends it
    const deadline = Date.now() + 5000;
    let mail = (await store.listMail()).filter((m) => m.to === 'fleet@example.com');
    while (!(mail.length === 1 && mail[0].sentAt) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      mail = (await store.listMail()).filter((m) => m.to === 'fleet@example.com');
    }
    assert.equal(mail.length, 1);
    assert.ok(mail[0].sentAt);
    assert.equal(readdirSync(join(dir, 'outbox')).length, 1);
  });
});
