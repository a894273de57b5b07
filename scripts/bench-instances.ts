/**
 * Instances benchmark: throughput of 200-stop live optimize calls with one and
 * with two service instances on this machine, for each store (SQLite file
 * shared by the instances; one PostgreSQL database). Each configuration starts
 * the real server processes on a fresh database, then a fetch loop with
 * `--concurrency` clients spreads calls round-robin over the instances for
 * `--duration` seconds. PostgreSQL: BENCH_DATABASE_URL / TEST_DATABASE_URL
 * (a server where databases may be created), else a throwaway local cluster.
 *
 *   npm run --silent bench:instances -- [--duration 20] [--concurrency 8] [--stops 200]
 *     [--instances 1,2] [--stores sqlite,postgres] [--solver-time-limit-ms 100] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Billing } from '../src/billing/billing.js';
import { openStore } from '../src/store/open.js';
import { startPostgres, type PostgresServer } from './lib/postgres-cluster.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { parseCliArgs } from './lib/cli-args.js';

const { values } = parseCliArgs(
  {
    duration: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '8' },
    stops: { type: 'string', default: '200' },
    instances: { type: 'string', default: '1,2' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'solver-time-limit-ms': { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
  },
  'usage: npm run --silent bench:instances -- [--duration 20] [--concurrency 8] [--stops 200] [--instances 1,2] [--stores sqlite,postgres] [--solver-time-limit-ms 100] [--json]',
);
const durationMs = Number(values.duration) * 1000;
const concurrency = Number(values.concurrency);
const stopCount = Number(values.stops);
const solverTimeLimitMs = values['solver-time-limit-ms']!;
const instanceCounts = values.instances!.split(',').map(Number);
const stores = values.stores!.split(',') as Array<'sqlite' | 'postgres'>;

function stopsAround(count: number, seed: number) {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: `p${i}`,
    latitude: 48.78 + rand() * 0.16,
    longitude: 2.22 + rand() * 0.26,
  }));
}
const bodies = Array.from({ length: 16 }, (_, i) =>
  JSON.stringify({ start: { latitude: 48.8566, longitude: 2.3522 }, stops: stopsAround(stopCount, i + 1) }),
);

interface Row {
  store: string;
  instances: number;
  requests: number;
  ok: number;
  errors: number;
  reqPerSec: number;
  stopsPerSec: number;
  p50Ms: number;
  p95Ms: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function load(urls: string[], key: string, runMs: number): Promise<Omit<Row, 'store' | 'instances'>> {
  const latencies: number[] = [];
  let requests = 0;
  let ok = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + runMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const n = next++;
        const t0 = performance.now();
        try {
          const res = await fetch(`${urls[n % urls.length]}/api/v1/optimize`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: bodies[n % bodies.length],
          });
          await res.arrayBuffer();
          if (res.status === 200) ok++;
        } catch {
          /* counted as an error */
        }
        requests++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    ok,
    errors: requests - ok,
    reqPerSec: ok / seconds,
    stopsPerSec: (ok * stopCount) / seconds,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-instances-'));
let pgServer: PostgresServer | null = null;
const rows: Row[] = [];
try {
  for (const store of stores) {
    for (const count of instanceCounts) {
      let databaseUrl: string | null = null;
      const databasePath = join(dir, `${store}-${count}.db`);
      if (store === 'postgres') {
        if (!pgServer) {
          const external = process.env.BENCH_DATABASE_URL;
          if (external && !process.env.TEST_DATABASE_URL) process.env.TEST_DATABASE_URL = external;
          pgServer = await startPostgres();
        }
        databaseUrl = await pgServer.createDatabase(`bench_${count}`);
      }
      const db = await openStore({ databaseUrl, databasePath, databaseBusyTimeoutMs: 5000 });
      const { key } = await new Billing(db, {
        limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
      }).issueKey('live', { stops: 1_000_000_000 });
      await db.close();
      const env: Record<string, string> = {
        DATABASE_PATH: databasePath,
        SOLVER_TIME_LIMIT_MS: solverTimeLimitMs,
        LOG_LEVEL: 'warn',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      };
      const processes: ServiceProcess[] = [];
      try {
        for (let i = 0; i < count; i++) processes.push(await startServiceProcess(env));
        // warm-up: WASM instantiation, JIT, pool connections
        await load(
          processes.map((p) => p.url),
          key,
          3000,
        );
        rows.push({
          store,
          instances: count,
          ...(await load(
            processes.map((p) => p.url),
            key,
            durationMs,
          )),
        });
        const last = rows[rows.length - 1];
        process.stderr.write(
          `${store} × ${count}: ${last.ok} ok, ${last.errors} errors, ${last.reqPerSec.toFixed(1)} req/s\n`,
        );
      } finally {
        await Promise.all(
          processes.map(async (p) => {
            p.child.kill('SIGTERM');
            await p.exited;
          }),
        );
      }
    }
  }
} finally {
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
}

if (values.json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(
    `POST /api/v1/optimize, ${stopCount} stops (coordinates), live key, ${concurrency} concurrent clients, ${durationMs / 1000} s per run, ` +
      `SOLVER_TIME_LIMIT_MS=${solverTimeLimitMs}, default SOLVER_POOL_SIZE per instance, ${availableParallelism()} CPUs, all on one machine`,
  );
  const header = ['store', 'instances', 'requests', 'ok', 'errors', 'req/s', 'stops/s', 'p50 ms', 'p95 ms'];
  const cells = rows.map((r) => [
    r.store,
    String(r.instances),
    String(r.requests),
    String(r.ok),
    String(r.errors),
    r.reqPerSec.toFixed(1),
    r.stopsPerSec.toFixed(0),
    r.p50Ms.toFixed(0),
    r.p95Ms.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  for (const line of [header, widths.map((w) => '-'.repeat(w)), ...cells])
    console.log(line.map((c, i) => c.padStart(widths[i])).join('  '));
}
