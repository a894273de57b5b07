/**
 * Restart benchmark: how long after a crash the database is clean again.
 * Each round starts the real server (src/main.ts) on a fresh database with the
 * default lease settings (or those in the environment), puts live-key traffic
 * on it (clients with Idempotency-Keys), kills it with SIGKILL while debits are
 * pending, restarts it on ANOTHER port, and times `admin db check` (run
 * in-process every 100 ms through the CLI's own entry, runAdmin) until it exits
 * 0 with the dead instance's lease settled. Then the unanswered calls are
 * retried with their keys and the ledger is audited: no answered call refunded,
 * no unanswered call left charged, balance = ledger sum.
 *
 *   npm run --silent bench:restart -- [--rounds 3] [--stores sqlite,postgres] [--clients 6] [--load-seconds 3] [--json]
 *
 * PostgreSQL: BENCH_DATABASE_URL / TEST_DATABASE_URL (a server where databases may be created), else a throwaway local cluster.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runAdmin } from '../src/admin/cli.js';
import { Billing } from '../src/billing/billing.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/open.js';
import type { IntegrityReport } from '../src/store/types.js';
import { auditLedger, LiveClients, until } from './lib/live-calls.js';
import { startPostgres, type PostgresServer } from './lib/postgres-cluster.js';
import { freePort, startServiceProcess, type ServiceProcess } from './lib/service-process.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    stores: { type: 'string', default: 'sqlite' },
    clients: { type: 'string', default: '6' },
    'load-seconds': { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const clientCount = Number(values.clients);
const loadMs = Number(values['load-seconds']) * 1000;
const stores = values.stores!.split(',') as Array<'sqlite' | 'postgres'>;
const INITIAL = 10_000_000;

interface Round {
  store: string;
  round: number;
  pendingAtKill: number;
  unansweredAtKill: number;
  restartReadyMs: number;
  cleanAfterKillMs: number;
  answered: number;
  ledgerExact: boolean;
  problems: string[];
}

async function checkReport(env: Record<string, string>): Promise<{ code: number; report: IntegrityReport }> {
  let out = '';
  const code = await runAdmin(['db', 'check'], loadConfig({ ...env, LOG_LEVEL: 'silent' }), {
    out: (l) => {
      out += l;
    },
    err: () => {},
  });
  return { code, report: JSON.parse(out) as IntegrityReport };
}

async function oneRound(kind: 'sqlite' | 'postgres', round: number, pgServer: PostgresServer | null): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'ros-bench-restart-'));
  const env: Record<string, string> = {
    DATABASE_PATH: join(dir, 'service.db'),
    OUTBOX_DIR: join(dir, 'outbox'),
    LOG_LEVEL: 'warn',
    SOLVER_TIME_LIMIT_MS: '100',
  };
  if (kind === 'postgres') env.DATABASE_URL = await pgServer!.createDatabase('bench_restart');
  const store = await openStore({
    databaseUrl: env.DATABASE_URL ?? null,
    databasePath: env.DATABASE_PATH,
    databaseBusyTimeoutMs: 5000,
  });
  const servers: ServiceProcess[] = [];
  try {
    const { key, record } = await new Billing(store, {
      limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
    }).issueKey('live', { stops: INITIAL });
    const first = await startServiceProcess(env);
    servers.push(first);
    const clients = new LiveClients(key, `r${round}`);
    const load = clients.load(() => [first.url], clientCount);
    await new Promise((r) => setTimeout(r, loadMs));
    const report = await until(
      'debits pending',
      30_000,
      async () => {
        const r = (await checkReport(env)).report;
        return r.leases.some((l) => l.pid === first.child.pid && l.pendingDebits > 0) ? r : false;
      },
      20,
    );
    first.child.kill('SIGKILL');
    const killedAt = performance.now();
    await load.stop();
    await first.exited;
    const dead = report.leases.find((l) => l.pid === first.child.pid)!;

    let port = await freePort();
    while (String(port) === new URL(first.url).port) port = await freePort();
    const second = await startServiceProcess(env, port);
    servers.push(second);
    const readyAt = performance.now();
    await until('db check to be clean', 120_000, async () => {
      const { code, report: r } = await checkReport(env);
      return code === 0 && !r.leases.some((l) => l.instanceId === dead.instanceId);
    });
    const cleanAt = performance.now();
    const unansweredAtKill = clients.unanswered().length;
    await clients.retryUnanswered(second.url);
    const audit = await auditLedger(store, record.id, INITIAL, clients.calls.values());
    return {
      store: kind,
      round,
      pendingAtKill: dead.pendingDebits,
      unansweredAtKill,
      restartReadyMs: Math.round(readyAt - killedAt),
      cleanAfterKillMs: Math.round(cleanAt - killedAt),
      answered: audit.answered,
      ledgerExact: audit.problems.length === 0,
      problems: audit.problems,
    };
  } finally {
    for (const s of servers)
      if (s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const config = loadConfig();
let pgServer: PostgresServer | null = null;
try {
  if (stores.includes('postgres')) {
    const external = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (external) process.env.TEST_DATABASE_URL = external;
    pgServer = await startPostgres();
  }
  if (!values.json) {
    console.log(
      `lease expiry ${config.lease.expiryMs} ms, heartbeat ${config.lease.heartbeatMs} ms; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  }
  const rows: Round[] = [];
  for (const kind of stores) {
    for (let round = 1; round <= rounds; round++) {
      const row = await oneRound(kind, round, pgServer);
      rows.push(row);
      if (values.json) console.log(JSON.stringify(row));
      else {
        console.log(
          `${kind} round ${round}: ${row.pendingAtKill} debits pending at kill -9; restarted on another port, ready after ${row.restartReadyMs} ms; ` +
            `db check clean ${row.cleanAfterKillMs} ms after the kill; ${row.answered} calls answered; ledger ${row.ledgerExact ? 'exact' : `WRONG: ${row.problems.join('; ')}`}`,
        );
      }
    }
  }
  if (!values.json) {
    for (const kind of stores) {
      const ms = rows.filter((r) => r.store === kind).map((r) => r.cleanAfterKillMs);
      console.log(
        `${kind}: db check clean after kill -9 + restart: max ${Math.max(...ms)} ms, mean ${Math.round(ms.reduce((a, b) => a + b, 0) / ms.length)} ms; load average now ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
    }
  }
  process.exitCode = rows.every((r) => r.ledgerExact) ? 0 : 1;
} finally {
  await pgServer?.stop();
}
