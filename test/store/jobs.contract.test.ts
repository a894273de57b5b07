/** The store contract for asynchronous plans, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { JobHold, NewJob, Store } from '../../src/store/types.js';
import { describeContract, freshDb, ledgerSum, liveKey, now, pending } from './harness.js';

/** A live key's job, accepted as the service accepts one: the debit made final and the job created together. */
async function accept(store: Store, keyId: number, stops = 4, createdAtMs = Date.now()): Promise<NewJob> {
  const debit = await store.debit(keyId, stops, `req-${randomUUID()}`, now, pending());
  assert.ok(debit.ok);
  const job: NewJob = {
    id: randomUUID(),
    keyId,
    requestBody: '{"vehicles":[],"stops":[]}',
    budgetMs: 5_000,
    stops,
    debitId: debit.debitId,
    createdAtMs,
  };
  assert.equal(await store.settleCharge({ debitId: debit.debitId, job }), true);
  return job;
}

/** A live instance lease, so that its runner's jobs are not taken again. */
const liveLease = (store: Store, instanceId: string, untilMs = Date.now() + 60_000) =>
  store.acquireLease({ instanceId, host: 'h', pid: 1, port: 3000 }, new Date(), untilMs);

describeContract('jobs', (kind) => {
  test('jobs: created with the final charge; visible to their key only; a settle that fails creates no job', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    const other = await liveKey(store, 100);
    const job = await accept(store, key.id);
    const read = await store.job(key.id, job.id);
    assert.equal(read?.status, 'queued');
    assert.equal(read?.stops, 4);
    assert.equal(read?.attempts, 0);
    assert.equal(await store.job(other.id, job.id), null);
    assert.equal(await store.unfinishedJobs(key.id), 1);
    assert.equal(await store.unfinishedJobs(other.id), 0);
    // a debit the sweep gave back cannot be settled: no job either
    const debit = await store.debit(key.id, 2, 'req-x', now, pending());
    assert.ok(debit.ok);
    await store.refund(debit.debitId, now);
    const lost = { ...job, id: randomUUID(), debitId: debit.debitId };
    assert.equal(await store.settleCharge({ debitId: debit.debitId, job: lost }), false);
    assert.equal(await store.job(key.id, lost.id), null);
    assert.equal(await ledgerSum(store, key.id), 96);
  });

  test('jobs: runners on three instances share the queue, oldest first, and never take one job twice', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open(), await db.open()];
    const key = await liveKey(stores[0], 1_000);
    const t = Date.now();
    const jobs: NewJob[] = [];
    for (let i = 0; i < 20; i++) jobs.push(await accept(stores[i % 3], key.id, 1, t + i));
    for (const [i, s] of stores.entries()) await liveLease(s, `runner-${i}`);
    assert.equal(await stores[0].queuedJobs(), 20);
    const taken: string[] = [];
    await Promise.all(
      stores.map(async (s, i) => {
        for (;;) {
          const next = await s.takeJob(`runner-${i}`, Date.now());
          if (!next) return;
          taken.push(next.job.id);
          assert.equal(next.job.status, 'running');
          assert.equal(next.hold.attempt, 1);
        }
      }),
    );
    assert.equal(taken.length, 20);
    assert.equal(new Set(taken).size, 20, 'no job taken twice');
    assert.equal(await stores[1].queuedJobs(), 0);
    const first = await stores[0].takeJob('runner-0', Date.now());
    assert.equal(first, null, 'nothing left: running jobs of live runners are not waiting');
  });

  test('jobs: the oldest waiting job is taken first', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    const t = Date.now();
    const late = await accept(store, key.id, 1, t + 10);
    const early = await accept(store, key.id, 1, t);
    await liveLease(store, 'r');
    assert.equal((await store.takeJob('r', Date.now()))?.job.id, early.id);
    assert.equal((await store.takeJob('r', Date.now()))?.job.id, late.id);
  });

  test('jobs: succeeded keeps the charge; failed gives it back once; a finished job is not finished again', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    await liveLease(store, 'r');
    const t = Date.now();
    const good = await accept(store, key.id, 5, t);
    const bad = await accept(store, key.id, 7, t + 1); // taken second: the queue is oldest first
    const holdGood = (await store.takeJob('r', Date.now()))!.hold;
    const holdBad = (await store.takeJob('r', Date.now()))!.hold;
    assert.deepEqual(await store.recordJobProgress(holdGood, '{"improvements":1}'), {
      held: true,
      cancelRequested: false,
    });
    assert.equal(await store.finishJob(holdGood, { status: 'succeeded', result: '{"routes":[]}' }, now), true);
    assert.equal(await store.finishJob(holdBad, { status: 'failed', error: '{"error":"x"}' }, now), true);
    assert.equal(await store.finishJob(holdBad, { status: 'failed', error: '{"error":"x"}' }, now), false);
    assert.equal(await store.finishJob(holdGood, { status: 'succeeded', result: '{}' }, now), false);
    const done = await store.job(key.id, good.id);
    assert.equal(done?.status, 'succeeded');
    assert.equal(done?.result, '{"routes":[]}');
    assert.equal(done?.progress, '{"improvements":1}');
    assert.equal((await store.job(key.id, bad.id))?.error, '{"error":"x"}');
    assert.equal(await ledgerSum(store, key.id), 95, 'the failed job is refunded, the plan is paid');
    const ledger = await store.ledger(key.id);
    assert.equal(ledger.filter((e) => e.reason === 'refund').length, 1);
    assert.deepEqual(await store.recordJobProgress(holdGood, '{}'), { held: false, cancelRequested: false });
    assert.equal(await store.unfinishedJobs(key.id), 0);
  });

  test('jobs: cancelling a queued job ends it refunded; a running one is asked to stop and keeps its plan (charged) or has none (refunded)', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    const other = await liveKey(store, 0);
    await liveLease(store, 'r');
    const queued = await accept(store, key.id, 3);
    assert.equal(await store.cancelJob(other.id, queued.id, now), null, 'another key cannot cancel it');
    const cancelled = await store.cancelJob(key.id, queued.id, now);
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(await ledgerSum(store, key.id), 100);
    assert.equal(
      (await store.cancelJob(key.id, queued.id, now))?.status,
      'cancelled',
      'a second cancel changes nothing',
    );
    assert.equal(await ledgerSum(store, key.id), 100);

    const withPlan = await accept(store, key.id, 4);
    const hold1 = (await store.takeJob('r', Date.now()))!.hold;
    assert.equal((await store.cancelJob(key.id, withPlan.id, now))?.cancelRequested, true);
    assert.deepEqual(await store.recordJobProgress(hold1, '{}'), { held: true, cancelRequested: true });
    assert.equal(await store.finishJob(hold1, { status: 'cancelled', result: '{"routes":[]}' }, now), true);
    const withoutPlan = await accept(store, key.id, 6);
    const hold2 = (await store.takeJob('r', Date.now()))!.hold;
    await store.cancelJob(key.id, withoutPlan.id, now);
    assert.equal(await store.finishJob(hold2, { status: 'cancelled', result: null }, now), true);
    assert.equal(await ledgerSum(store, key.id), 96, 'the kept plan is paid, the empty one refunded');
    assert.equal((await store.job(key.id, withPlan.id))?.result, '{"routes":[]}');
  });

  test('jobs: a job whose runner died is taken again; the dead runner can no longer write it; it is charged once', async () => {
    const db = await freshDb(kind);
    const [a, b] = [await db.open(), await db.open()];
    const key = await liveKey(a, 100);
    const t = Date.now();
    await liveLease(a, 'dying', t + 1_000);
    await liveLease(b, 'alive', t + 60_000);
    const job = await accept(a, key.id, 5);
    const first = (await a.takeJob('dying', t))!;
    assert.equal(await b.takeJob('alive', t + 500), null, 'its runner still holds a live lease');
    const again = (await b.takeJob('alive', t + 1_000))!;
    assert.equal(again.job.id, job.id);
    assert.equal(again.hold.attempt, 2);
    assert.equal(again.job.startedAtMs, first.job.startedAtMs, 'started when first taken');
    const stale: JobHold = first.hold;
    assert.deepEqual(await a.recordJobProgress(stale, '{"stale":true}'), { held: false, cancelRequested: false });
    assert.equal(
      await a.finishJob(stale, { status: 'failed', error: '{}' }, now),
      false,
      'no refund from the dead runner',
    );
    assert.equal(await b.finishJob(again.hold, { status: 'succeeded', result: '{"routes":[]}' }, now), true);
    assert.equal(await ledgerSum(b, key.id), 95);
    assert.equal((await b.job(key.id, job.id))?.attempts, 2);
  });

  test('jobs: finished jobs are deleted after their retention, unfinished ones never', async () => {
    const db = await freshDb(kind);
    const store = await db.open();
    const key = await liveKey(store, 100);
    await liveLease(store, 'r');
    const old = await accept(store, key.id, 1);
    const hold = (await store.takeJob('r', Date.now()))!.hold;
    await store.finishJob(hold, { status: 'succeeded', result: '{}' }, new Date(1_000));
    const waiting = await accept(store, key.id, 1);
    assert.equal(await store.deleteFinishedJobs(2_000), 1);
    assert.equal(await store.job(key.id, old.id), null);
    assert.equal((await store.job(key.id, waiting.id))?.status, 'queued');
  });
});
