/**
 * Instance leases with real server processes (src/main.ts, as `npm start` runs
 * it), on one SQLite file and on one PostgreSQL database:
 * - kill -9 under load, restart on another port: the dead instance's pending
 *   charges are settled by the new one once the lease expires (not at the
 *   charges' own deadline), every 200 is charged exactly once, every other call
 *   not at all, `db check` clean;
 * - several instances, one killed under load: the survivors settle its charges
 *   exactly once between them;
 * - a second server on a busy port exits 1 with one line and writes nothing,
 *   while the first's in-flight call completes and is charged once;
 * - a process frozen (SIGSTOP) past its lease: another instance gives its
 *   in-flight charge back; when it wakes, the call answers 502 saying what
 *   happened, the ledger is exact, and it carries on under a new lease.
 * The lease is shortened (LEASE_EXPIRY_MS) to keep the tests short; the
 * charges' own deadline (REQUEST_DEADLINE_MS + 5 s) stays far beyond it.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { runAdmin } from '../../src/admin/cli.js';
import { Billing } from '../../src/billing/billing.js';
import { loadConfig } from '../../src/config.js';
import type { ApiKeyRecord, Store } from '../../src/store/types.js';
import { openStore } from '../../src/store/open.js';
import { startFakeOsrm, type FakeOsrm } from '../fakes/osrm.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { freePort, spawnServiceProcess, startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { auditLedger, LiveClients, until, type LogicalCall } from '../helpers/live-calls.js';
import { tempDir } from '../helpers/server.js';

const LEASE = { LEASE_EXPIRY_MS: '3000', LEASE_HEARTBEAT_MS: '1000' };
const BASE_ENV = {
  ...LEASE,
  REQUEST_DEADLINE_MS: '30000',
  SOLVER_TIME_LIMIT_MS: '100',
  SOLVER_POOL_SIZE: '1',
  LOG_LEVEL: 'warn',
};
const limits = { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 };

let pgServer: PostgresServer;
let slowOsrm: FakeOsrm;
const running: ServiceProcess[] = [];
const loads: Array<{ stop(): Promise<void> }> = [];
before(async () => {
  pgServer = await startPostgres();
  slowOsrm = await startFakeOsrm({ mode: { kind: 'delay', ms: 1500 } });
});
// a failed assertion leaves servers and client loads behind: end them all, so that the file ends too
after(async () => {
  for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(loads.map((l) => l.stop()));
  await slowOsrm?.close();
  await pgServer?.stop();
});

/**
 * Routing through an OSRM that answers after 1.5 s: every call this server takes holds its
 * debit pending for that long, so a kill right after a pending debit is seen always orphans one
 * (with the default haversine routing a small call can settle between the look and the kill).
 */
const slowRouting = (): Record<string, string> => ({
  ROUTING: 'osrm',
  OSRM_URL: slowOsrm.url,
  OSRM_TIMEOUT_MS: '60000',
});

function startLoad(clients: LiveClients, urls: () => string[], count: number): { stop(): Promise<void> } {
  const load = clients.load(urls, count);
  loads.push(load);
  return load;
}

type Kind = 'sqlite' | 'postgres';

interface Db {
  env: Record<string, string>;
  store: Store;
  /** Raw SQL with `?` placeholders, on either store. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

async function freshDb(kind: Kind): Promise<Db> {
  const dir = tempDir('ros-leases-');
  const env: Record<string, string> = { DATABASE_PATH: join(dir, 'service.db'), OUTBOX_DIR: join(dir, 'outbox') };
  if (kind === 'postgres') env.DATABASE_URL = await pgServer.createDatabase('leases');
  const store = await openStore({
    databaseUrl: env.DATABASE_URL ?? null,
    databasePath: env.DATABASE_PATH,
    databaseBusyTimeoutMs: 5000,
  });
  return {
    env,
    store,
    async query<R>(sql: string, params: unknown[] = []) {
      if (kind === 'sqlite') {
        const db = new Database(env.DATABASE_PATH, { readonly: true });
        try {
          return db.prepare(sql).all(...params) as R[];
        } finally {
          db.close();
        }
      }
      let n = 0;
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      try {
        return (
          await client.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as R[];
      } finally {
        await client.end();
      }
    },
    close: () => store.close(),
  };
}

async function start(env: Record<string, string>, port?: number): Promise<ServiceProcess> {
  const p = await startServiceProcess(env, port);
  running.push(p);
  return p;
}

async function adminCheck(env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(['db', 'check'], loadConfig({ ...env, LOG_LEVEL: 'silent' }), {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every call that answered 200 is debited exactly once, every other call not at all, and the balance is the ledger sum. */
async function assertExactLedger(
  store: Store,
  key: ApiKeyRecord,
  initial: number,
  calls: Iterable<LogicalCall>,
): Promise<number> {
  const audit = await auditLedger(store, key.id, initial, calls);
  assert.deepEqual(audit.problems, []);
  return audit.answered;
}

/** The lease row of a server process (by its pid). */
async function leaseOf(
  db: Db,
  p: ServiceProcess,
): Promise<{ instance_id: string; end_reason: string | null; ended_by: string | null }> {
  const rows = await db.query<{ instance_id: string; end_reason: string | null; ended_by: string | null }>(
    'SELECT instance_id, end_reason, ended_by FROM instance_leases WHERE pid = ? ORDER BY started_at_ms',
    [p.child.pid],
  );
  assert.ok(rows.length > 0, `no lease row for pid ${p.child.pid}`);
  return rows[0];
}

describe('instance leases with real server processes', () => {
  test('sqlite: kill -9 under load, restart on another port: the new process settles every pending debit at lease expiry; ledger exact; db check clean', async () => {
    const db = await freshDb('sqlite');
    const initial = 1_000_000;
    const { key, record } = await new Billing(db.store, { limits }).issueKey('live', { stops: initial });
    const env = { ...db.env, ...BASE_ENV };
    const a = await start({ ...env, ...slowRouting() });
    const clients = new LiveClients(key, 'k9');
    const load = startLoad(clients, () => [a.url], 6);
    await until(
      'calls in flight',
      20_000,
      async () => [...clients.calls.values()].filter((c) => c.status === 200).length >= 5,
    );
    // kill while a debit is pending
    await until(
      'a pending debit',
      20_000,
      async () => (await db.query('SELECT 1 FROM pending_debits LIMIT 1')).length > 0,
    );
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    await load.stop();
    assert.equal(await a.exited, 'SIGKILL');
    const leaseA = await leaseOf(db, a);
    const orphaned = await db.query<{ debit_id: number; expires_at_ms: number }>(
      'SELECT debit_id, expires_at_ms FROM pending_debits WHERE owner = ?',
      [leaseA.instance_id],
    );
    const lost = [...clients.calls.values()].filter((c) => c.status === 'lost').length;
    assert.ok(orphaned.length > 0, 'the kill left debits pending');

    let port = await freePort();
    while (port === Number(new URL(a.url).port)) port = await freePort();
    const b = await start(env, port);
    // right after the kill the dead lease still looks live (its calls could be running): clean means settled
    const check = await until('the dead lease to be settled and db check clean', 60_000, async () => {
      const r = await adminCheck(env);
      return r.code === 0 && (await leaseOf(db, a)).end_reason === 'settled' ? r : false;
    });
    const cleanAt = Date.now();
    console.log(
      `# sqlite: ${orphaned.length} debits pending at kill -9, ${lost} calls unanswered; db check clean ${cleanAt - killedAt} ms after the kill`,
    );
    const leaseB = await leaseOf(db, b);
    const settled = await leaseOf(db, a);
    assert.deepEqual(
      [settled.end_reason, settled.ended_by],
      ['settled', leaseB.instance_id],
      'the new process settled the dead lease',
    );
    assert.ok(
      cleanAt < Math.min(...orphaned.map((o) => Number(o.expires_at_ms))),
      "settled at lease expiry, before the charges' own deadline",
    );
    for (const o of orphaned) {
      assert.equal(
        (await db.query('SELECT 1 FROM ledger WHERE refund_of = ?', [o.debit_id])).length,
        1,
        `debit ${o.debit_id} refunded once`,
      );
    }
    assert.match(check.err, /^OK: \d+ keys.*1 live instance/m);

    await clients.retryUnanswered(b.url);
    const answered = await assertExactLedger(db.store, record, initial, clients.calls.values());
    assert.ok(answered > 5);
    b.child.kill('SIGTERM');
    assert.equal(await b.exited, 0);
    assert.equal((await leaseOf(db, b)).end_reason, 'released');
    assert.equal((await db.store.checkIntegrity(new Date())).ok, true);
    await db.close();
  });

  for (const kind of ['sqlite', 'postgres'] as const) {
    test(`${kind}: three instances under load, one killed: the survivors settle its charges exactly once between them; ledger exact`, async () => {
      const db = await freshDb(kind);
      const initial = 1_000_000;
      const { key, record } = await new Billing(db.store, { limits }).issueKey('live', { stops: initial });
      const env = { ...db.env, ...BASE_ENV };
      const servers = await Promise.all([start({ ...env, ...slowRouting() }), start(env), start(env)]);
      const [victim, ...survivors] = servers;
      const clients = new LiveClients(key, `${kind}-3`);
      let targets = servers.map((s) => s.url);
      const load = startLoad(clients, () => targets, 6);
      await until(
        'calls answered',
        30_000,
        async () => [...clients.calls.values()].filter((c) => c.status === 200).length >= 10,
      );
      await until('a pending debit on the victim', 20_000, async () => {
        const lease = await leaseOf(db, victim);
        return (await db.query('SELECT 1 FROM pending_debits WHERE owner = ?', [lease.instance_id])).length > 0;
      });
      victim.child.kill('SIGKILL');
      targets = survivors.map((s) => s.url); // the load goes on, on the survivors
      assert.equal(await victim.exited, 'SIGKILL');
      const leaseV = await leaseOf(db, victim);
      const orphaned = await db.query<{ debit_id: number }>('SELECT debit_id FROM pending_debits WHERE owner = ?', [
        leaseV.instance_id,
      ]);
      assert.ok(orphaned.length > 0);
      const settled = await until('the dead lease to be settled', 60_000, async () => {
        const lease = await leaseOf(db, victim);
        return lease.end_reason === 'settled' ? lease : false;
      });
      await load.stop();
      const survivorIds = await Promise.all(survivors.map(async (s) => (await leaseOf(db, s)).instance_id));
      assert.ok(survivorIds.includes(settled.ended_by!), `settled by a survivor (${settled.ended_by})`);
      for (const o of orphaned) {
        assert.equal(
          (await db.query('SELECT 1 FROM ledger WHERE refund_of = ?', [o.debit_id])).length,
          1,
          `debit ${o.debit_id} refunded exactly once`,
        );
      }
      await clients.retryUnanswered(survivors[0].url);
      await assertExactLedger(db.store, record, initial, clients.calls.values());
      const check = await adminCheck(env);
      assert.equal(check.code, 0, check.err);
      assert.deepEqual(
        (JSON.parse(check.out) as { leases: Array<{ state: string }> }).leases.map((l) => l.state),
        ['live', 'live'],
      );
      await Promise.all(
        survivors.map(async (s) => {
          s.child.kill('SIGTERM');
          assert.equal(await s.exited, 0);
        }),
      );
      await db.close();
    });
  }

  test('sqlite: a second server on the busy port while the first has a call in flight: exit 1, one line, nothing written; the call completes, charged once', async () => {
    const db = await freshDb('sqlite');
    const osrm = await startFakeOsrm({ mode: { kind: 'hold' } });
    try {
      const { key, record } = await new Billing(db.store, { limits }).issueKey('live', { stops: 100 });
      const env = {
        ...db.env,
        ...BASE_ENV,
        ROUTING: 'osrm',
        OSRM_URL: osrm.url,
        OSRM_TIMEOUT_MS: '60000',
        LOG_LEVEL: 'info',
      };
      const first = await start(env);
      const port = Number(new URL(first.url).port);
      const clients = new LiveClients(key, 'busy');
      const call: LogicalCall = { id: 'busy-1', stops: 12, status: 'lost' };
      const answered = clients.call(first.url, call);
      await until(
        'the call to be in flight',
        20_000,
        async () => osrm.held > 0 && (await db.query('SELECT 1 FROM pending_debits')).length === 1,
      );

      const snapshot = async () => ({
        // the first server's heartbeat moves heartbeat_at_ms and expires_at_ms; everything else must stay as it is
        leases: await db.query(
          'SELECT instance_id, host, pid, port, started_at_ms, ended_at_ms, end_reason, ended_by FROM instance_leases ORDER BY instance_id',
        ),
        ledger: await db.query('SELECT * FROM ledger ORDER BY id'),
        keys: await db.query('SELECT * FROM api_keys ORDER BY id'),
        pending: await db.query('SELECT * FROM pending_debits ORDER BY debit_id'),
        idempotency: await db.query('SELECT * FROM idempotency_keys ORDER BY key_id, idempotency_key'),
        migrations: await db.query('SELECT version FROM schema_migrations ORDER BY version'),
      });
      const before = await snapshot();
      const second = spawnServiceProcess(env, port);
      running.push(second);
      assert.equal(await second.exited, 1);
      assert.equal(
        second.output(),
        `port ${port} is already in use; set PORT to another port\n`,
        'one line, no stack trace',
      );
      assert.deepEqual(await snapshot(), before, 'the second server changed nothing in the database');
      assert.equal(osrm.held, 1, "the first server's call was still in flight all along");

      osrm.release();
      await answered;
      assert.equal(call.status, 200, call.message);
      await assertExactLedger(db.store, record, 100, [call]);
      assert.deepEqual(
        (await db.store.ledger(record.id)).map((e) => e.reason),
        ['admin_credit', 'debit'],
      );
      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
      assert.equal((await db.store.checkIntegrity(new Date())).ok, true);
    } finally {
      await osrm.close();
      await db.close();
    }
  });

  for (const kind of ['sqlite', 'postgres'] as const) {
    test(`${kind}: a server frozen past its lease: another instance gives its charge back; on waking the call answers 502 saying so, the ledger is exact`, async () => {
      const db = await freshDb(kind);
      const osrm = await startFakeOsrm({ mode: { kind: 'hold' } });
      try {
        const { key, record } = await new Billing(db.store, { limits }).issueKey('live', { stops: 100 });
        const env = {
          ...db.env,
          ...BASE_ENV,
          ROUTING: 'osrm',
          OSRM_URL: osrm.url,
          OSRM_TIMEOUT_MS: '60000',
          REQUEST_DEADLINE_MS: '60000',
        };
        const [frozen, other] = await Promise.all([start(env), start(env)]);
        const clients = new LiveClients(key, `${kind}-stall`);
        const call: LogicalCall = { id: `${kind}-stalled-call`, stops: 9, status: 'lost' };
        const answered = clients.call(frozen.url, call);
        const lease = await leaseOf(db, frozen);
        await until(
          'the call to be in flight',
          20_000,
          async () =>
            osrm.held > 0 &&
            (await db.query('SELECT 1 FROM pending_debits WHERE owner = ?', [lease.instance_id])).length === 1,
        );

        frozen.child.kill('SIGSTOP');
        const settled = await until('the frozen lease to be settled', 60_000, async () => {
          const l = await leaseOf(db, frozen);
          return l.end_reason === 'settled' ? l : false;
        });
        assert.equal(settled.ended_by, (await leaseOf(db, other)).instance_id);
        assert.deepEqual(
          (await db.store.ledger(record.id)).map((e) => e.reason),
          ['admin_credit', 'debit', 'refund'],
          'given back while frozen',
        );

        osrm.release(); // the routing answer waits in the frozen process's socket
        frozen.child.kill('SIGCONT');
        await answered;
        assert.equal(call.status, 502);
        assert.match(
          call.message ?? '',
          /stalled for longer than its instance lease.*another instance took over its unfinished calls.*Nothing was charged/,
        );
        await assertExactLedger(db.store, record, 100, [call]);
        assert.deepEqual(
          (await db.store.ledger(record.id)).map((e) => e.reason),
          ['admin_credit', 'debit', 'refund'],
          'refunded once, not again by the woken call',
        );

        // it carries on under a new lease: the retry succeeds and is charged once
        await clients.call(frozen.url, call);
        assert.equal(call.status, 200, call.message);
        await assertExactLedger(db.store, record, 100, [call]);
        const leases = await db.query<{ end_reason: string | null }>(
          'SELECT end_reason FROM instance_leases WHERE pid = ? ORDER BY started_at_ms',
          [frozen.child.pid],
        );
        assert.deepEqual(
          leases.map((l) => l.end_reason),
          ['settled', null],
        );
        assert.match(frozen.output(), /could not renew its lease for \d+ ms .* continuing as instance [0-9a-f]{12}/);
        await Promise.all(
          [frozen, other].map(async (s) => {
            s.child.kill('SIGTERM');
            assert.equal(await s.exited, 0);
          }),
        );
        const check = await adminCheck(env);
        assert.equal(check.code, 0, check.err);
      } finally {
        await osrm.close();
        await db.close();
      }
    });
  }
});
