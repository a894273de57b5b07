/**
 * Fairness benchmark (not part of the tests): one live key fires N concurrent 1000-stop plans at the
 * real service (started as a child process, on loopback) while, from outside:
 *   - /healthz is polled every 50 ms (latency p50 / p99 / max); the flood is sent and read by a worker thread, so
 *     its client-side work is not timed as the server's,
 *   - another live key sends 20-stop optimize calls one after another (latency, status),
 *   - the server's event-loop delay is read from its own /metrics every second (max and p99 of each window),
 *   - the server's RSS is sampled every 100 ms: idle before the flood, peak, and 60 s after the last answer.
 * Every plan's status (with its error code), time to answer and whether it answered after the request
 * deadline are counted.
 *
 *   npm run --silent bench:fairness -- [--root DIR[,DIR…]] [--n 8,64] [--stops 1000] [--vehicles 20] [--after-s 60] [--json]
 *
 * --root runs the service of another checkout (e.g. the unmodified code, for a "before" figure); its admin
 * CLI creates the keys. With several roots, each N runs on each root in turn (before and after side by side
 * in one run, on the same machine load). Each run gets a fresh service and database. Every loop is bounded
 * in count and time.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { coordinateStops, parisStops, PARIS_START } from './lib/paris-stops.js';
import { createLiveKey as createKey, startBenchService, type BenchService } from './lib/bench-service.js';
import { floodInWorker, request, type Answer } from './lib/fairness-calls.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: new URL('..', import.meta.url).pathname },
    n: { type: 'string', default: '8,64' },
    stops: { type: 'string', default: '1000' },
    vehicles: { type: 'string', default: '20' },
    'after-s': { type: 'string', default: '60' },
    'deadline-ms': { type: 'string', default: '30000' },
    json: { type: 'boolean', default: false },
  },
});
const roots = values.root!.split(',').map((r) => resolve(r));
const DEADLINE_MS = Number(values['deadline-ms']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Service extends BenchService {
  metricsToken: string;
}

async function startService(root: string): Promise<Service> {
  const metricsToken = randomBytes(16).toString('hex');
  const service = await startBenchService(root, 'fairness', {
    METRICS_TOKEN: metricsToken,
    REQUEST_DEADLINE_MS: String(DEADLINE_MS),
  });
  return { ...service, metricsToken };
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round1 = (x: number): number => Math.round(x * 10) / 10;

function summary(ms: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: round1(percentile(s, 50)), p99: round1(percentile(s, 99)), max: round1(s.at(-1) ?? NaN) };
}

function statusCounts(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const k = a.error ? `${a.status} ${a.error}` : String(a.status);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

function planBody(stops: number, vehicles: number, seed: number): string {
  return JSON.stringify({
    vehicles: Array.from({ length: vehicles }, (_, k) => ({ id: `van-${k + 1}`, start: PARIS_START })),
    stops: parisStops(stops, seed).map((s) => ({ ...s, serviceSeconds: 120 })),
  });
}

/** The server's V8 heap (total, used) and external memory in MB, from its /metrics. */
async function heapMb(service: Service): Promise<{ total: number; used: number; external: number } | null> {
  try {
    const text = await (
      await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${service.metricsToken}` } })
    ).text();
    const read = (metric: string) => {
      const m = new RegExp(`^\\w*${metric}\\s+([\\d.e+-]+)`, 'm').exec(text);
      return m ? Math.round(Number(m[1]) / 1048576) : NaN;
    };
    return {
      total: read('nodejs_heap_size_total_bytes'),
      used: read('nodejs_heap_size_used_bytes'),
      external: read('nodejs_external_memory_bytes'),
    };
  } catch {
    return null;
  }
}

async function eventLoopWindow(service: Service): Promise<{ maxMs: number; p99Ms: number } | null> {
  try {
    const text = await (
      await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${service.metricsToken}` } })
    ).text();
    const read = (metric: string) => {
      const m = new RegExp(`^\\w*${metric}\\s+([\\d.e+-]+)`, 'm').exec(text);
      return m ? Number(m[1]) * 1000 : NaN;
    };
    const maxMs = read('nodejs_eventloop_lag_max_seconds');
    return Number.isNaN(maxMs) ? null : { maxMs, p99Ms: read('nodejs_eventloop_lag_p99_seconds') };
  } catch {
    return null;
  }
}

async function scenario(n: number, root: string): Promise<Record<string, unknown>> {
  const service = await startService(root);
  try {
    const bigKey = createKey(root, service, 10_000_000);
    const otherKey = createKey(root, service, 1_000_000);
    const small = JSON.stringify({ start: PARIS_START, stops: coordinateStops(20, 7) });
    const warm = await request(`${service.url}/api/v1/optimize`, { method: 'POST', key: otherKey, body: small });
    if (warm.status !== 200) throw new Error(`warm-up optimize answered ${warm.status} ${warm.error ?? ''}`);
    await sleep(2000);
    const rssIdle = service.rssMb();
    const heapIdle = await heapMb(service);
    let rssPeak = rssIdle;
    const rssTimer = setInterval(() => {
      rssPeak = Math.max(rssPeak, service.rssMb());
    }, 100);
    await eventLoopWindow(service); // resets the server's window

    const bodies = Array.from({ length: n }, (_, i) => planBody(Number(values.stops), Number(values.vehicles), 1 + i));
    let flooding = true;
    /** The three slowest /healthz answers and when they were asked (s after the flood began). */
    const slowest: Array<{ atS: number; ms: number }> = [];
    const started = performance.now();
    // the flood's client work runs on a thread of its own: this one only times /healthz and the other key's calls
    const plans = floodInWorker({ url: `${service.url}/api/v1/plans`, key: bigKey, bodies }).finally(() => {
      flooding = false;
    });

    const health = (async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const ms: number[] = [];
      while (flooding && performance.now() - started < 180_000) {
        const t = performance.now();
        const answer = await request(`${service.url}/healthz`, { agent });
        ms.push(answer.ms);
        slowest.push({ atS: round1((t - started) / 1000), ms: round1(answer.ms) });
        slowest.sort((a, b) => b.ms - a.ms).splice(3);
        await sleep(Math.max(0, 50 - (performance.now() - t)));
      }
      agent.destroy();
      return ms;
    })();
    const others = (async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const answers: Answer[] = [];
      await sleep(500); // the flood is in
      while (flooding && performance.now() - started < 180_000) {
        answers.push(
          await request(`${service.url}/api/v1/optimize`, { method: 'POST', key: otherKey, body: small, agent }),
        );
        await sleep(500);
      }
      agent.destroy();
      return answers;
    })();
    const loop = (async () => {
      const windows: Array<{ maxMs: number; p99Ms: number }> = [];
      while (flooding && performance.now() - started < 180_000) {
        await sleep(1000);
        const w = await eventLoopWindow(service);
        if (w) windows.push(w);
      }
      return windows;
    })();
    const [planAnswers, healthMs, otherAnswers, loopWindows] = await Promise.all([plans, health, others, loop]);
    const floodMs = performance.now() - started;
    const afterS = Number(values['after-s']);
    await sleep(afterS * 1000);
    clearInterval(rssTimer);
    const rssAfter = service.rssMb();
    const heapAfter = await heapMb(service);
    const byStatus = (status: number) => planAnswers.filter((a) => a.status === status).map((a) => a.ms);
    return {
      n,
      root,
      stops: Number(values.stops),
      floodS: round1(floodMs / 1000),
      plans: statusCounts(planAnswers),
      plans200Ms: summary(byStatus(200)),
      plans503Ms: summary(byStatus(503)),
      plansAfterDeadline: planAnswers.filter((a) => a.ms > DEADLINE_MS).length,
      plansLatestMs: round1(Math.max(...planAnswers.map((a) => a.ms))),
      healthzMs: summary(healthMs),
      healthzSlowest: slowest,
      otherOptimize: statusCounts(otherAnswers),
      otherOptimizeMs: summary(otherAnswers.map((a) => a.ms)),
      otherAfterDeadline: otherAnswers.filter((a) => a.ms > DEADLINE_MS).length,
      eventLoopMaxMs: loopWindows.length ? round1(Math.max(...loopWindows.map((w) => w.maxMs))) : null,
      eventLoopP99Ms: loopWindows.length ? round1(Math.max(...loopWindows.map((w) => w.p99Ms))) : null,
      rssMb: { idle: Math.round(rssIdle), peak: Math.round(rssPeak), [`after${afterS}s`]: Math.round(rssAfter) },
      heapMb: { idle: heapIdle, [`after${afterS}s`]: heapAfter },
      loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    };
  } finally {
    await service.stop();
  }
}

function printTable(row: Record<string, unknown>): void {
  const s = (x: unknown) => (typeof x === 'object' ? JSON.stringify(x) : String(x));
  console.log(`\nN = ${row.n} concurrent ${row.stops}-stop plans from one key (root ${row.root})`);
  for (const [k, v] of Object.entries(row)) if (k !== 'n' && k !== 'root') console.log(`  ${k.padEnd(20)} ${s(v)}`);
}

for (const n of values.n!.split(',').map(Number)) {
  for (const root of roots) {
    const row = await scenario(n, root);
    if (values.json) console.log(JSON.stringify(row));
    else printTable(row);
  }
}
