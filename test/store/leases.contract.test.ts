/** The store contract for leases, recovery and the integrity check, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { InstanceLease } from '../../src/billing/lease.js';
import { DomainError } from '../../src/errors.js';
import { createPostgresPool } from '../../src/store/postgres.js';
import { manualClock } from '../helpers/server.js';
import { describeContract, freshDb, ledgerSum, limits, liveKey, now, pending, type Db } from './harness.js';

describeContract('leases', (kind) => {
  test("leases: a live lease's charges are never given back by others; once expired, one sweep ends it and gives them back exactly once (3 sweepers at once)", async () => {
    const db = await freshDb(kind);
    const clock = manualClock('2026-06-01T10:00:00Z');
    const stores = [await db.open(), await db.open(), await db.open()];
    const timing = { expiryMs: 10_000, heartbeatMs: 3_000 };
    const lost: string[] = [];
    const leaseA = await InstanceLease.acquire(
      stores[0],
      { host: 'host-a', pid: 101, port: 3000 },
      timing,
      { lost: (prev) => lost.push(prev) },
      clock,
    );
    const [leaseB, leaseC] = await Promise.all(
      [1, 2].map((i) =>
        InstanceLease.acquire(stores[i], { host: `host-${i}`, pid: 200 + i, port: 3000 }, timing, {}, clock),
      ),
    );
    const a = new Billing(stores[0], { limits, clock, chargeTtlMs: 35_000, owner: leaseA });
    const { record: live } = await a.issueKey('live', { stops: 100 });
    const { record: sandbox } = await a.issueKey('test');
    const settled = await a.openCharge(live, 7, 'settled');
    await settled.settle();
    const charge = await a.openCharge(live, 10, 'req-a');
    await a.openCharge(sandbox, 4, 'sandbox-a');
    assert.deepEqual(
      await stores[0].beginIdempotent({
        keyId: live.id,
        idempotencyKey: 'idem-a',
        requestHash: 'h',
        nowMs: clock().getTime(),
        expiredBeforeMs: 0,
        pending: { untilMs: clock().getTime() + 35_000, owner: leaseA.instanceId },
      }),
      { kind: 'started' },
    );
    const idA = leaseA.instanceId;

    clock.advance(9_000); // A's last heartbeat was 9 s ago: still live
    const early = await Promise.all([leaseB.beat(), leaseC.beat()]);
    assert.deepEqual(
      early.map((r) => [r.refunded.length, r.releasedSandbox, r.releasedIdempotencyClaims, r.settledLeases.length]),
      [
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ],
    );
    let check = await stores[1].checkIntegrity(clock());
    assert.equal(check.ok, true, JSON.stringify(check));
    const byHost = (rows: Array<Array<string | number>>) =>
      rows.sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    assert.deepEqual(
      byHost(
        check.leases.map((l) => [
          l.host,
          l.state,
          l.pendingDebits,
          l.pendingStops,
          l.sandboxReservations,
          l.idempotencyClaims,
        ]),
      ),
      [
        ['host-1', 'live', 0, 0, 0, 0],
        ['host-2', 'live', 0, 0, 0, 0],
        ['host-a', 'live', 1, 10, 1, 1],
      ],
    );

    clock.advance(1_000); // 10 s without a heartbeat: expired
    check = await stores[2].checkIntegrity(clock());
    assert.equal(check.ok, false);
    assert.equal(check.expiredPendingDebits, 1, "db check sees the dead instance's charge");
    assert.equal(check.expiredSandboxReservations, 1);
    assert.deepEqual(byHost(check.leases.map((l) => [l.host, l.instanceId, l.state])), [
      ['host-1', leaseB.instanceId, 'live'],
      ['host-2', leaseC.instanceId, 'live'],
      ['host-a', idA, 'expired'],
    ]);

    const admin = new Billing(stores[2], { limits, clock });
    const reports = await Promise.all([leaseB.beat(), leaseC.beat(), admin.recoverExpiredCharges()]);
    assert.deepEqual(
      reports.flatMap((r) => r.settledLeases.map((l) => [l.instanceId, l.host, l.pid, l.port])),
      [[idA, 'host-a', 101, 3000]],
      'one sweeper ends the lease',
    );
    const refunded = reports.flatMap((r) => r.refunded);
    assert.deepEqual(
      refunded.map((r) => [r.stops, r.requestId, r.owner]),
      [[10, 'req-a', idA]],
      'refunded exactly once',
    );
    assert.equal(
      reports.reduce((n, r) => n + r.releasedSandbox, 0),
      1,
    );
    assert.equal(
      reports.reduce((n, r) => n + r.releasedIdempotencyClaims, 0),
      1,
    );
    assert.deepEqual(
      reports.map((r) => r.renewed),
      [true, true, undefined],
    );
    for (const lease of [leaseB, leaseC]) assert.equal((await lease.beat()).refunded.length, 0, 'only once');

    // A wakes up: its call cannot settle, says why, and A carries on under a new lease
    await assert.rejects(
      charge.settle(),
      (err: DomainError) =>
        err.status === 502 &&
        err.code === 'optimization_failed' &&
        /stalled for longer than its instance lease/.test(err.message),
    );
    assert.deepEqual(lost, [idA]);
    assert.notEqual(leaseA.instanceId, idA);
    await charge.cancel(); // the call's own cancel after that changes nothing
    assert.deepEqual(
      (await stores[0].ledger(live.id)).map((e) => e.reason),
      ['admin_credit', 'debit', 'debit', 'refund'],
    );
    assert.equal((await stores[0].findKeyByLast4(live.last4))[0].balance, 93);
    const next = await a.openCharge(live, 5, 'after-wake-up');
    await next.settle();
    clock.advance(3_600_000);
    assert.equal((await admin.recoverExpiredCharges()).refunded.length, 0, 'settled charges stay');
    check = await stores[0].checkIntegrity(clock());
    assert.equal(check.ok, true, JSON.stringify(check));
    assert.deepEqual(
      check.leases.map((l) => l.instanceId).includes(idA),
      false,
      'a settled lease that holds nothing is no longer listed',
    );
  });

  test('leases: a renewal racing a sweep of the same expired lease: the renewal wins whole or the sweep does, never half', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open()];
    const key = await liveKey(stores[0], 1000);
    const t0 = Date.UTC(2026, 5, 1, 10);
    let renewals = 0;
    for (let i = 0; i < 12; i++) {
      const id = `racer-${i}`;
      await stores[0].acquireLease({ instanceId: id, host: 'h', pid: i, port: 3000 }, new Date(t0), t0 + 10_000);
      const debit = await stores[0].debit(key.id, 1, `race-${i}`, now, { untilMs: t0 + 60_000, owner: id });
      assert.ok(debit.ok);
      const at = new Date(t0 + 10_001);
      const renew = () => stores[0].recoverCharges({ now: at, by: id, renewUntilMs: at.getTime() + 10_000 });
      const sweep = () => stores[1].recoverCharges({ now: at, by: 'sweeper' });
      // started in both orders (SQLite runs them one after the other; PostgreSQL really races them)
      const [own, other] =
        i % 2 === 0 ? await Promise.all([renew(), sweep()]) : (await Promise.all([sweep(), renew()])).reverse();
      if (own.renewed) {
        renewals++;
        assert.deepEqual(
          [own.refunded.length, other.refunded.length, other.settledLeases.length],
          [0, 0, 0],
          'a renewed lease keeps its charge',
        );
        assert.equal(await stores[1].settleCharge({ debitId: debit.debitId }), true);
      } else {
        assert.equal(own.settledLeases.length + other.settledLeases.length, 1);
        assert.equal(own.refunded.length + other.refunded.length, 1, "the ended lease's charge is given back once");
        assert.equal(await stores[0].settleCharge({ debitId: debit.debitId }), false);
      }
    }
    console.log(`# ${kind}: renewal won ${renewals} of 12 races`);
    const check = await stores[1].checkIntegrity(new Date(t0 + 10_001));
    assert.equal(check.mismatches.length, 0);
    assert.equal(check.expiredPendingDebits, 0);
  });

  test("leases: a clean release gives back what is still pending under the id and ends the lease; others' charges stay", async () => {
    const db = await freshDb(kind);
    const { clock, stores, leaseA, leaseB } = await twoInstances(db);
    const a = new Billing(stores[0], { limits, clock, owner: leaseA });
    const b = new Billing(stores[1], { limits, clock, owner: leaseB });
    const { record: live } = await a.issueKey('live', { stops: 100 });
    await a.openCharge(live, 3, 'orphan'); // e.g. a refund that could not be written during the call
    const theirs = await b.openCharge(live, 4, 'theirs');
    const report = await leaseA.release();
    assert.deepEqual(
      report?.refunded.map((r) => r.requestId),
      ['orphan'],
    );
    assert.equal(await leaseA.release(), null, 'once');
    const check = await stores[1].checkIntegrity(clock());
    assert.equal(check.ok, true, JSON.stringify(check));
    assert.deepEqual(
      check.leases.map((l) => [l.host, l.state, l.pendingDebits]),
      [['b', 'live', 1]],
    );
    assert.deepEqual(
      (await stores[0].recoverCharges({ now: clock(), by: 'admin' })).settledLeases,
      [],
      'a released lease is not settled again',
    );
    await theirs.settle();
    assert.equal((await stores[0].findKeyByLast4(live.last4))[0].balance, 96);
  });

  test('settle racing the recovery sweep of an expired lease: either the charge is settled or it is refunded, never both', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open()];
    const key = await liveKey(stores[0], 1000);
    const t0 = Date.now();
    await stores[0].acquireLease(
      { instanceId: 'x', host: 'h', pid: 1, port: 3000 },
      new Date(t0 - 20_000),
      t0 - 10_000,
    );
    const debits = [];
    for (let i = 0; i < 20; i++) {
      const d = await stores[0].debit(key.id, 1, `race-${i}`, now, { untilMs: t0 + 60_000, owner: 'x' });
      assert.ok(d.ok);
      debits.push(d.debitId);
    }
    const [settles, report] = await Promise.all([
      Promise.all(debits.map((debitId) => stores[0].settleCharge({ debitId }))),
      stores[1].recoverCharges({ now: new Date(t0), by: 'sweeper' }),
    ]);
    const settled = settles.filter(Boolean).length;
    assert.equal(report.settledLeases.length, 1);
    assert.equal(settled + report.refunded.length, 20);
    assert.equal((await stores[1].listKeys())[0].balance, 1000 - settled);
    assert.equal((await stores[1].checkIntegrity(new Date(t0))).ok, true);
  });

  test('charges of an owner without a lease row (written before leases) are given back past their deadline', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 50);
    const t0 = Date.UTC(2026, 5, 1, 10);
    const debit = await store.debit(key.id, 5, 'old', now, { untilMs: t0 + 35_000, owner: 'old-host:3000' });
    assert.ok(debit.ok);
    assert.equal((await store.recoverCharges({ now: new Date(t0 + 34_999), by: 'admin' })).refunded.length, 0);
    assert.equal((await store.checkIntegrity(new Date(t0 + 34_999))).ok, true);
    assert.equal((await store.checkIntegrity(new Date(t0 + 35_000))).expiredPendingDebits, 1);
    assert.deepEqual(
      (await store.recoverCharges({ now: new Date(t0 + 35_000), by: 'admin' })).refunded.map((r) => r.owner),
      ['old-host:3000'],
    );
  });

  test('integrity check finds a balance that disagrees with the ledger; ping answers', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    await store.ping();
    assert.deepEqual(await store.checkIntegrity(now), {
      keysChecked: 1,
      mismatches: [],
      expiredPendingDebits: 0,
      expiredSandboxReservations: 0,
      leases: [],
      ok: true,
    });
    await db.query(
      kind === 'sqlite'
        ? 'UPDATE api_keys SET balance = balance + 1 WHERE id = ?'
        : 'UPDATE api_keys SET balance = balance + 1 WHERE id = $1',
      [key.id],
    );
    const report = await store.checkIntegrity(now);
    assert.equal(report.ok, false);
    assert.deepEqual(report.mismatches, [{ keyId: key.id, balance: 101, ledgerSum: 100 }]);
  });

  if (kind === 'postgres')
    test('postgres: an instance frozen inside a transaction holds its lease row only until idle_in_transaction_session_timeout; then a sweep takes its lease over', async () => {
      const db = await freshDb(kind);
      const { clock, leaseA, leaseB } = await twoInstances(db);
      // A's process stops in the middle of its heartbeat's transaction, its lease row locked (a pool as the
      // service opens it: the timeout set on each connection)
      const url = (db.location as { url: string }).url;
      const frozenPool = createPostgresPool(url, { idleInTransactionTimeoutMs: 300 });
      const frozen = await frozenPool.connect();
      frozen.on('error', () => {});
      try {
        await frozen.query('BEGIN');
        await frozen.query('SELECT 1 FROM instance_leases WHERE instance_id = $1 FOR UPDATE', [leaseA.instanceId]);
        clock.advance(10_000); // A's lease has expired
        assert.deepEqual((await leaseB.beat()).settledLeases, [], 'a locked lease row is left alone (SKIP LOCKED)');
        const settled = await (async () => {
          for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            const report = await leaseB.beat();
            if (report.settledLeases.length > 0) return report.settledLeases;
          }
          return [];
        })();
        assert.deepEqual(
          settled.map((l) => l.instanceId),
          [leaseA.instanceId],
          'the server ended the frozen session, its lock went with it',
        );
        await assert.rejects(frozen.query('SELECT 1'), 'the frozen session is gone');
      } finally {
        frozen.release(true);
        await frozenPool.end();
      }
    });
});

/** Two instances on one database, each with its store and lease (10 s expiry, 3 s heartbeat) on one manual clock. */
async function twoInstances(db: Db) {
  const clock = manualClock('2026-06-01T10:00:00Z');
  const stores = [await db.open(), await db.open()];
  const timing = { expiryMs: 10_000, heartbeatMs: 3_000 };
  const leaseA = await InstanceLease.acquire(stores[0]!, { host: 'a', pid: 1, port: 3001 }, timing, {}, clock);
  const leaseB = await InstanceLease.acquire(stores[1]!, { host: 'b', pid: 2, port: 3002 }, timing, {}, clock);
  return { clock, stores, leaseA, leaseB };
}
