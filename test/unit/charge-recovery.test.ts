import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
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
  assert.deepEqual(ledger.map((e) => e.reason), ['admin_credit', 'debit', 'refund']);
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

test('at start-up, the charges this instance held before restarting are given back at once; other instances\' are left until expiry', async () => {
  const { path, store, billing, clock, live, sandbox } = await setup('host-a:3000');
  const other = new Billing(store, { limits, clock, chargeTtlMs: 35_000, instanceId: 'host-b:3000' });
  await billing.openCharge(live, 5, 'mine');
  await billing.openCharge(sandbox, 4, 'mine-sandbox');
  await other.openCharge(live, 6, 'theirs');
  await store.close();

  const reopened = new SqliteStore(path);
  const restarted = new Billing(reopened, { limits, clock, chargeTtlMs: 35_000, instanceId: 'host-a:3000' });
  const report = await restarted.recoverExpiredCharges(true);
  assert.deepEqual(report.refunded.map((r) => r.requestId), ['mine']);
  assert.equal(report.releasedSandbox, 1);
  assert.equal((await reopened.findKeyByLast4(live.last4))[0].balance, 94, "host-b's call may still complete");
  assert.equal((await restarted.sandboxQuotas(sandbox)).sandboxStopsRemainingToday, 200);
  clock.advance(35_000);
  assert.deepEqual((await restarted.recoverExpiredCharges()).refunded.map((r) => r.requestId), ['theirs']);
  assert.equal((await reopened.findKeyByLast4(live.last4))[0].balance, 100);
  assert.equal((await reopened.checkIntegrity(clock())).ok, true);
  await reopened.close();
});

test('db integrity check finds a balance that disagrees with the ledger', async () => {
  const { store, clock, live } = await setup();
  store.db.prepare('UPDATE api_keys SET balance = balance + 1 WHERE id = ?').run(live.id);
  const report = await store.checkIntegrity(clock());
  assert.equal(report.ok, false);
  assert.deepEqual(report.mismatches, [{ keyId: live.id, balance: 101, ledgerSum: 100 }]);
});
