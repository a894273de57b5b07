/**
 * `db migrate-to-postgres`: a SQLite database with every kind of row is copied
 * into an empty PostgreSQL database through the admin CLI; the service's data
 * reads back the same through the PostgreSQL store, ids continue after the
 * copied ones, and a second run refuses (the target is no longer empty).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runAdmin } from '../../src/admin/cli.js';
import { Billing } from '../../src/billing/billing.js';
import { generateApiKey, hashApiKey, lastFour } from '../../src/billing/keys.js';
import { ConsoleTestKeys } from '../../src/console/test-keys.js';
import { loadConfig } from '../../src/config.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

async function admin(argv: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, loadConfig(env), { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Everything the service can hold, as comparable plain data. */
async function snapshot(store: Store) {
  const keys = await store.listKeys();
  return {
    keys,
    ledgers: await Promise.all(keys.map((k) => store.ledger(k.id))),
    payments: await store.listPayments(),
    mail: await store.listMail(),
    geocode: await store.getCachedGeocode('10 rue de rivoli|embedded'),
    integrity: await store.checkIntegrity(new Date('2026-06-01T12:00:00Z')),
  };
}

test('db migrate-to-postgres copies a SQLite database into an empty PostgreSQL one, verified; refuses a non-empty target', async () => {
  const dir = tempDir('ros-migrate-');
  const env = { DATABASE_PATH: join(dir, 'service.db'), OUTBOX_DIR: join(dir, 'outbox') };
  const sqlite = new SqliteStore(env.DATABASE_PATH);
  const t = new Date('2026-06-01T10:00:00Z');
  const billing = new Billing(sqlite, {
    limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
    clock: () => t,
    instanceId: 'old-host:3000',
  });
  const live = await billing.issueKey('live', { stops: 500, email: 'fleet@example.com' });
  const test = await billing.issueKey('test');
  const settled = await billing.openCharge(live.record, 12, 'settled-call');
  await settled.settle();
  const refunded = await billing.openCharge(live.record, 7, 'refunded-call');
  await refunded.cancel();
  await billing.openCharge(live.record, 3, 'in-flight-call'); // still pending: its expiry and owner travel with it
  await billing.consumeSandbox(await billing.reserveSandbox(test.record, 4, 'sandbox-call'));
  await sqlite.beginIdempotent({
    keyId: live.record.id,
    idempotencyKey: 'idem-1',
    requestHash: 'h',
    nowMs: t.getTime(),
    expiredBeforeMs: 0,
    pending: { untilMs: t.getTime() + 60_000, owner: 'old-host:3000' },
  });
  const key = generateApiKey('live');
  await sqlite.recordPurchase({
    stripeEventId: 'evt_1',
    stripeSessionId: 'cs_test_1',
    email: 'buyer@example.com',
    packId: 'pack_2k',
    stops: 2000,
    amountCents: 2900,
    currency: 'eur',
    newKey: { keyHash: hashApiKey(key), last4: lastFour(key) },
    composeMail: () => ({ kind: 'new_key', to: 'buyer@example.com', subject: 'Your key', body: key }),
    now: t,
  });
  await sqlite.putCachedGeocode(
    '10 rue de rivoli|embedded',
    { result: '{"latitude":48.85,"longitude":2.36}', precision: 'municipality', engine: 'embedded' },
    t,
  );
  await new ConsoleTestKeys(sqlite, { perIpPerDay: 10, perEmailPerDay: 3 }, () => t).issue(
    'dev@example.com',
    '203.0.113.9',
  );
  const before = await snapshot(sqlite);
  await sqlite.close();

  const url = await server.createDatabase('migrate');
  const missingUrl = await admin(['db', 'migrate-to-postgres'], env);
  assert.equal(missingUrl.code, 2, 'DATABASE_URL is required');
  const res = await admin(['db', 'migrate-to-postgres'], { ...env, DATABASE_URL: url });
  assert.equal(res.code, 0, res.err);
  const summary = JSON.parse(res.out) as {
    tables: Array<{ table: string; rows: number }>;
    keysVerified: number;
    totalBalance: number;
  };
  assert.equal(summary.keysVerified, 4);
  assert.deepEqual(Object.fromEntries(summary.tables.map((r) => [r.table, r.rows])), {
    api_keys: 4,
    ledger: 6,
    pending_debits: 1,
    sandbox_calls: 1,
    idempotency_keys: 1,
    geocode_cache: 1,
    payments: 1,
    outbox: 1,
    console_key_requests: 1,
    instance_leases: 0,
  });
  assert.match(res.err, /balances equal their ledger/);

  const pgStore = await PostgresStore.open(url);
  try {
    assert.deepEqual(await snapshot(pgStore), before);
    // the pending charge keeps its owner and deadline: an owner without a lease row (written before leases) is settled past its deadline
    assert.equal((await pgStore.recoverCharges({ now: t, by: 'admin' })).refunded.length, 0);
    const recovered = await pgStore.recoverCharges({ now: new Date(t.getTime() + 60_000), by: 'admin' });
    assert.deepEqual(
      recovered.refunded.map((r) => r.requestId),
      ['in-flight-call'],
    );
    assert.equal(recovered.releasedIdempotencyClaims, 1);
    // sequences continue after the copied ids
    const next = await pgStore.createKey({
      kind: 'test',
      keyHash: 'after-migration',
      last4: 'next',
      email: null,
      initialStops: 0,
      reason: 'admin_credit',
      now: t,
    });
    assert.equal(next.id, Math.max(...before.keys.map((k) => k.id)) + 1);
    const mailId = await pgStore.enqueueMail({ kind: 'top_up', to: 'x@example.com', subject: 's', body: 'b' }, null, t);
    assert.equal(mailId, before.mail.at(-1)!.id + 1);
  } finally {
    await pgStore.close();
  }

  // the admin CLI works against PostgreSQL
  const list = await admin(['keys', 'list'], { ...env, DATABASE_URL: url });
  assert.equal(list.code, 0);
  assert.equal(list.out.split('\n').length, 1 + 5);
  const check = await admin(['db', 'check'], { ...env, DATABASE_URL: url });
  assert.equal(check.code, 0, check.err);
  const backup = await admin(['db', 'backup', join(dir, 'b.db')], { ...env, DATABASE_URL: url }).then(
    () => null,
    (e: Error) => e,
  );
  assert.match(String(backup?.message), /pg_dump/);

  const again = await admin(['db', 'migrate-to-postgres'], { ...env, DATABASE_URL: url });
  assert.equal(again.code, 1);
  assert.match(again.err, /not empty/);
});

test('db migrate-to-postgres refuses while a service instance still holds a live lease on the SQLite file', async () => {
  const dir = tempDir('ros-migrate-live-');
  const env = { DATABASE_PATH: join(dir, 'service.db'), OUTBOX_DIR: join(dir, 'outbox') };
  const sqlite = new SqliteStore(env.DATABASE_PATH);
  await sqlite.acquireLease(
    { instanceId: 'running1', host: 'web-1', pid: 4242, port: 3000 },
    new Date(),
    Date.now() + 60_000,
  );
  await sqlite.close();
  const url = await server.createDatabase('migrate_live');
  const res = await admin(['db', 'migrate-to-postgres'], { ...env, DATABASE_URL: url });
  assert.equal(res.code, 1);
  assert.match(
    res.err,
    /still running on the SQLite database \(instance running1: web-1 pid 4242 port 3000\): stop it first/,
  );
  const pgStore = await PostgresStore.open(url);
  try {
    assert.deepEqual(await pgStore.listKeys(), [], 'nothing copied');
  } finally {
    await pgStore.close();
  }
});
