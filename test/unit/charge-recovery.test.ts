import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { InstanceLease } from '../../src/billing/lease.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { manualClock, tempDir } from '../helpers/server.js';

const limits = { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 };

async function setup(instanceId = 'host:3000') {
  const path = join(tempDir(), 'recovery.db');
  const clock = manualClock('2026-06-01T10:00:00Z');
  const store = new SqliteStore(path);
  const billing = new Billing(store, { limits, clock, chargeTtlMs: 35_000, instanceId });
  const live = await billing.issueKey('live', { stops: 100 });
  const sandbox = await billing.issueKey('test');
  return { path, clock, store, billing, live: live.record, sandbox: sandbox.record };
}

test('an unsettled charge past its expiry is refunded once by the sweep, and can no longer be settled', async () => {
  const { store, billing, clock, live } = await setup();
  const charge = await billing.openCharge(live, 10, 'req-a');
  clock.advance(34_000);
  assert.deepEqual((await billing.recoverExpiredCharges()).refunded, []);
  assert.equal((await store.checkIntegrity(clock())).ok, true);
  clock.advance(1_000);
  assert.equal((await store.checkIntegrity(clock())).expiredPendingDebits, 1, 'db check sees the stale charge');
  const report = await billing.recoverExpiredCharges();
  assert.equal(report.refunded.length, 1);
  assert.equal(report.refunded[0].stops, 10);
  assert.equal((await billing.recoverExpiredCharges()).refunded.length, 0, 'only once');
  await assert.rejects(charge.settle(), (err: any) => err.status === 502 && err.code === 'optimization_failed');
  await charge.cancel(); // the call's own cancel after that changes nothing
  const ledger = await store.ledger(live.id);
  assert.deepEqual(
    ledger.map((e) => e.reason),
    ['admin_credit', 'debit', 'refund'],
  );
  assert.equal((await store.findKeyByLast4(live.last4))[0].balance, 100);
  assert.equal((await store.checkIntegrity(clock())).ok, true);
});

test('a settled charge is never refunded by the sweep', async () => {
  const { store, billing, clock, live } = await setup();
  const charge = await billing.openCharge(live, 7, 'req-b');
  await charge.settle();
  clock.advance(3_600_000);
  assert.equal((await billing.recoverExpiredCharges()).refunded.length, 0);
  assert.equal((await store.findKeyByLast4(live.last4))[0].balance, 93);
});

test('a fixed owner (no lease row, as before leases) is given back only past its deadline, whoever sweeps', async () => {
  const { store, billing, clock, live } = await setup('host-a:3000');
  await billing.openCharge(live, 5, 'old');
  clock.advance(34_999);
  assert.equal((await billing.recoverExpiredCharges()).refunded.length, 0);
  clock.advance(1);
  assert.deepEqual(
    (await billing.recoverExpiredCharges('someone-else')).refunded.map((r) => r.requestId),
    ['old'],
  );
  assert.equal((await store.checkIntegrity(clock())).ok, true);
});

test('an instance that stalled past its lease: the next charge renews first, finds the lease settled, and is stamped with a new lease', async () => {
  const path = join(tempDir(), 'stall.db');
  const clock = manualClock('2026-06-01T10:00:00Z');
  const store = new SqliteStore(path);
  const other = new SqliteStore(path);
  const timing = { expiryMs: 10_000, heartbeatMs: 3_000 };
  const events: string[] = [];
  const lease = await InstanceLease.acquire(
    store,
    { host: 'h', pid: 1, port: 3000 },
    timing,
    {
      lost: (previous, next, since) => events.push(`lost ${previous} -> ${next} after ${since} ms`),
    },
    clock,
  );
  const first = lease.instanceId;
  const billing = new Billing(store, { limits, clock, chargeTtlMs: 35_000, owner: lease });
  const { record } = await billing.issueKey('live', { stops: 100 });
  const inFlight = await billing.openCharge(record, 8, 'in-flight');
  assert.equal(await lease.current(), first, 'a fresh lease is used as is');
  clock.advance(12_000); // the process stalls: no heartbeat
  const survivor = await InstanceLease.acquire(other, { host: 'h2', pid: 2, port: 3001 }, timing, {}, clock);
  const swept = await survivor.beat();
  assert.deepEqual(
    swept.settledLeases.map((l) => l.instanceId),
    [first],
  );
  assert.deepEqual(
    swept.refunded.map((r) => r.requestId),
    ['in-flight'],
  );
  // the stalled process wakes: a new call is stamped with a new lease, so it is not swept with the old one
  const next = await billing.openCharge(record, 2, 'next');
  assert.notEqual(lease.instanceId, first);
  assert.deepEqual(events, [`lost ${first} -> ${lease.instanceId} after 12000 ms`]);
  assert.equal((await survivor.beat()).refunded.length, 0);
  await next.settle();
  await assert.rejects(
    inFlight.settle(),
    (err: any) => err.status === 502 && /another instance took over its unfinished calls/.test(err.message),
  );
  const check = await other.checkIntegrity(clock());
  assert.equal(check.ok, true, JSON.stringify(check));
  assert.equal((await other.findKeyByLast4(record.last4))[0].balance, 98);
  await store.close();
  await other.close();
});

test('a heartbeat keeps the lease live: a lease renewed every heartbeat is never settled by another instance', async () => {
  const path = join(tempDir(), 'beat.db');
  const store = new SqliteStore(path);
  const timing = { expiryMs: 1_000, heartbeatMs: 50 };
  const lease = await InstanceLease.acquire(store, { host: 'h', pid: 1, port: 3000 }, timing, {}, () => new Date());
  const other = await InstanceLease.acquire(store, { host: 'h', pid: 2, port: 3001 }, timing, {}, () => new Date());
  lease.start();
  const billing = new Billing(store, { limits, owner: lease });
  const { record } = await billing.issueKey('live', { stops: 10 });
  const charge = await billing.openCharge(record, 3, 'long-call');
  // real time passes well beyond the expiry while the heartbeat timer runs
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await other.beat()).refunded.length, 0);
  }
  await charge.settle();
  const report = await lease.release();
  assert.equal(report?.refunded.length, 0);
  assert.deepEqual(
    (await store.checkIntegrity(new Date())).leases.map((l) => l.state),
    ['live'],
    'the released lease is gone from the list; the other is live',
  );
  await other.release();
  await store.close();
});

test('db integrity check finds a balance that disagrees with the ledger', async () => {
  const { store, clock, live } = await setup();
  store.db.prepare('UPDATE api_keys SET balance = balance + 1 WHERE id = ?').run(live.id);
  const report = await store.checkIntegrity(clock());
  assert.equal(report.ok, false);
  assert.deepEqual(report.mismatches, [{ keyId: live.id, balance: 101, ledgerSum: 100 }]);
});
