/**
 * Asynchronous plans across process deaths and instances, on SQLite and PostgreSQL: a job whose server is killed
 * (SIGKILL) while it runs is taken again by the next instance once the dead one's lease has lapsed, ends once and
 * is charged once; with PostgreSQL, one API instance and two worker instances share a queue of 20 jobs and run
 * none twice.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { PARIS_START, coordinateStops, tempDir } from '../helpers/server.js';

let postgres: PostgresServer;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
});

interface Database {
  env: Record<string, string>;
  open(): Promise<Store>;
}

async function database(kind: 'sqlite' | 'postgres'): Promise<Database> {
  if (kind === 'sqlite') {
    const path = join(tempDir('ros-jobs-crash-'), 'service.db');
    return { env: { DATABASE_PATH: path }, open: async () => new SqliteStore(path) };
  }
  const url = await postgres.createDatabase('jobs');
  return { env: { DATABASE_URL: url }, open: () => PostgresStore.open(url) };
}

const BASE_ENV = {
  LEASE_EXPIRY_MS: '2000',
  LEASE_HEARTBEAT_MS: '500',
  JOB_POLL_MS: '200',
  JOB_PROGRESS_MS: '200',
  LOG_LEVEL: 'warn',
};

async function liveKey(db: Database, stops: number): Promise<{ key: string; id: number }> {
  const store = await db.open();
  try {
    const { key, record } = await new Billing(store, {
      limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
    }).issueKey('live', { stops });
    return { key, id: record.id };
  } finally {
    await store.close();
  }
}

const planBody = (stops: number, seed: number, timeLimitSeconds: number) => ({
  departureTime: '2026-06-01T08:00:00+02:00',
  vehicles: [
    { id: 'a', start: PARIS_START },
    { id: 'b', start: PARIS_START },
    { id: 'c', start: PARIS_START },
  ],
  stops: coordinateStops(stops, seed),
  timeLimitSeconds,
});

async function submit(server: ServiceProcess, key: string, body: unknown): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/plans`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Prefer: 'respond-async' },
    body: JSON.stringify(body),
  });
  const accepted = (await res.json()) as { id: string };
  assert.equal(res.status, 202, JSON.stringify(accepted));
  return accepted.id;
}

async function waitFor(server: ServiceProcess, key: string, id: string, done: (job: any) => boolean): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const job = await (
      await fetch(`${server.url}/api/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${key}` } })
    ).json();
    if (done(job)) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${id} did not get there`);
}

const stopped = async (server: ServiceProcess): Promise<void> => {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited;
};

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`asynchronous plans across a SIGKILL: ${kind}`, () => {
    test(
      'a job running when its server is killed is run again by the next instance: it succeeds once and is charged once',
      { timeout: 120_000 },
      async () => {
        const db = await database(kind);
        const { key, id: keyId } = await liveKey(db, 1_000);
        const first = await startServiceProcess({ ...db.env, ...BASE_ENV });
        let second: ServiceProcess | undefined;
        try {
          const job = await submit(first, key, planBody(300, 7, 4));
          await waitFor(first, key, job, (j) => j.status === 'running' && j.progress.elapsedMs > 0);
          first.child.kill('SIGKILL');
          assert.equal(await first.exited, 'SIGKILL');

          second = await startServiceProcess({ ...db.env, ...BASE_ENV });
          const done = await waitFor(second, key, job, (j) => ['succeeded', 'failed', 'cancelled'].includes(j.status));
          assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
          assert.equal(done.result.routes.flatMap((r: any) => r.order).length + done.result.unassigned.length, 300);

          const store = await db.open();
          try {
            assert.equal((await store.job(keyId, job))?.attempts, 2, 'taken again after the kill');
            const ledger = await store.ledger(keyId);
            assert.deepEqual(
              ledger.map((e) => [e.reason, e.delta]),
              [
                ['admin_credit', 1_000],
                ['debit', -300],
              ],
              'charged once, never refunded',
            );
            const integrity = await store.checkIntegrity(new Date());
            assert.deepEqual(integrity.mismatches, []);
          } finally {
            await store.close();
          }
        } finally {
          if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
          if (second) await stopped(second);
        }
      },
    );
  });
}

test(
  'PostgreSQL: an API instance and two workers share a queue of 20 jobs; each runs once, each is charged once',
  { timeout: 180_000 },
  async () => {
    const db = await database('postgres');
    const { key, id: keyId } = await liveKey(db, 1_000);
    const api = await startServiceProcess({ ...db.env, ...BASE_ENV, SERVICE_ROLE: 'api' });
    const workers: ServiceProcess[] = [];
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await submit(api, key, planBody(6, i + 1, 1)));
      await new Promise((r) => setTimeout(r, 500));
      const queued = await waitFor(api, key, ids[0]!, () => true);
      assert.equal(queued.status, 'queued', 'the API instance runs no job');
      for (let i = 0; i < 2; i++)
        workers.push(
          await startServiceProcess({ ...db.env, ...BASE_ENV, SERVICE_ROLE: 'worker', JOB_CONCURRENCY: '2' }),
        );
      assert.equal(
        (await fetch(`${workers[0]!.url}/api/v1/plans`, { method: 'POST' })).status,
        404,
        'a worker serves no API',
      );
      for (const id of ids) {
        const done = await waitFor(api, key, id, (j) => ['succeeded', 'failed', 'cancelled'].includes(j.status));
        assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
      }
      const store = await db.open();
      try {
        for (const id of ids) assert.equal((await store.job(keyId, id))?.attempts, 1, `job ${id} ran once`);
        const ledger = await store.ledger(keyId);
        assert.equal(ledger.filter((e) => e.reason === 'debit').length, 20);
        assert.equal(ledger.filter((e) => e.reason === 'refund').length, 0);
      } finally {
        await store.close();
      }
    } finally {
      await stopped(api);
      for (const w of workers) await stopped(w);
    }
  },
);
