/**
 * Soak benchmark (not part of the tests): runs the service as a child process
 * and sends mixed traffic on loopback for a while — live and test keys, 5 to
 * 200 stops, some invalid bodies, balance reads — then reports latency
 * percentiles, errors, the server's RSS at start and end, and its event-loop delay.
 *
 *   npm run --silent bench:soak -- [--minutes 10] [--concurrency 8]
 */
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Billing } from '../src/billing/billing.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { startServiceProcess } from './lib/service-process.js';
import { parseCliArgs } from './lib/cli-args.js';

const { values } = parseCliArgs(
  { minutes: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '8' } },
  'usage: npm run --silent bench:soak -- [--minutes 10] [--concurrency 8]',
);
const durationMs = Number(values.minutes) * 60_000;
const dir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
const databasePath = join(dir, 'soak.db');
const seed = new SqliteStore(databasePath);
const billing = new Billing(seed, { limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 } });
const live = (await billing.issueKey('live', { stops: 1_000_000_000 })).key;
const testKeys = await Promise.all(Array.from({ length: 4 }, async () => (await billing.issueKey('test')).key));
await seed.close();

const server = await startServiceProcess({
  DATABASE_PATH: databasePath,
  LOG_LEVEL: 'warn',
  SANDBOX_CALLS_PER_MINUTE: '100000',
  SANDBOX_STOPS_PER_DAY: '10000000',
});
const pid = server.child.pid!;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const rssStart = rssMb();
// prom-client resets its event-loop histogram at each scrape: this one drops start-up from the figures
await (await fetch(`${server.url}/metrics`)).text();

let seedValue = 42;
const rand = () => {
  seedValue = (seedValue * 1103515245 + 12345) % 2147483648;
  return seedValue / 2147483648;
};
const stops = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    latitude: 48.78 + rand() * 0.16,
    longitude: 2.22 + rand() * 0.26,
    ...(rand() < 0.3 ? { deadline: '10:30' } : {}),
  }));
const latencies: number[] = [];
const statuses = new Map<number, number>();
let transportErrors = 0;

async function one(): Promise<void> {
  const r = rand();
  let path = '/api/v1/optimize';
  let init: RequestInit;
  if (r < 0.1) {
    path = '/api/v1/balance';
    init = { headers: { Authorization: `Bearer ${live}` } };
  } else if (r < 0.15) {
    init = {
      method: 'POST',
      headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json' },
      body: '{"start": {"latitude": 95}}',
    };
  } else if (r < 0.45) {
    const key = testKeys[Math.floor(rand() * testKeys.length)];
    init = {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        start: { latitude: 48.8566, longitude: 2.3522 },
        stops: stops(2 + Math.floor(rand() * 9)),
      }),
    };
  } else {
    const n = [5, 20, 50, 100, 200][Math.floor(rand() * 5)];
    init = {
      method: 'POST',
      headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        start: { latitude: 48.8566, longitude: 2.3522 },
        end: { latitude: 48.8566, longitude: 2.3522 },
        stops: stops(n),
      }),
    };
  }
  const started = performance.now();
  try {
    const res = await fetch(server.url + path, init);
    await res.arrayBuffer();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  } catch {
    transportErrors++;
  }
  latencies.push(performance.now() - started);
}

const endAt = Date.now() + durationMs;
let lastReport = Date.now();
await Promise.all(
  Array.from({ length: Number(values.concurrency) }, async () => {
    while (Date.now() < endAt) {
      await one();
      if (Date.now() - lastReport > 60_000) {
        lastReport = Date.now();
        process.stderr.write(
          `  ${Math.round((endAt - Date.now()) / 1000)} s left, ${latencies.length} requests, RSS ${rssMb().toFixed(0)} MB\n`,
        );
      }
    }
  }),
);
const rssEnd = rssMb();
const metrics = await (await fetch(`${server.url}/metrics`)).text();
const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
server.child.kill('SIGTERM');
await server.exited;
rmSync(dir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
console.log(
  `soak: ${values.minutes} min, concurrency ${values.concurrency}, ${latencies.length} requests (${(latencies.length / (durationMs / 1000)).toFixed(1)} req/s)`,
);
console.log(`latency ms: p50 ${pct(50)}  p90 ${pct(90)}  p99 ${pct(99)}  max ${latencies.at(-1)!.toFixed(1)}`);
console.log(
  `statuses: ${[...statuses]
    .sort()
    .map(([s, n]) => `${s}×${n}`)
    .join('  ')}  transport errors: ${transportErrors}`,
);
console.log(`server RSS: start ${rssStart.toFixed(0)} MB, end ${rssEnd.toFixed(0)} MB`);
console.log(
  `event-loop delay (server, prom-client): p50 ${(metric('nodejs_eventloop_lag_p50_seconds') * 1000).toFixed(1)} ms, p99 ${(metric('nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(1)} ms, max ${(metric('nodejs_eventloop_lag_max_seconds') * 1000).toFixed(1)} ms`,
);
