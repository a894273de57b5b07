/**
 * Hardening benchmark (not part of the tests): three bad days, measured from
 * outside on loopback against the real service started as a child process.
 *
 *   lock     another process holds `BEGIN EXCLUSIVE` on the SQLite file for 12 s
 *            (the sqlite3 CLI, else a second better-sqlite3 process) while three
 *            optimize calls run and /healthz is polled every 100 ms: the server's
 *            event-loop delay (prom-client's monitorEventLoopDelay, from /metrics)
 *            and the /healthz latency.
 *   flood    failed logins at ~300/s from 20,000 distinct addresses (X-Forwarded-For
 *            with TRUST_PROXY set; the service sees each as a client), after a 3 s
 *            warm-up from other addresses: /healthz latency, the server's event-loop
 *            delay, 401/429 throughput at the start and at the end.
 *   uploads  1,500 anonymous connections each send just under 1 MB of an optimize
 *            body and stall: the server's RSS over time and how soon it lets go.
 *
 *   npm run --silent bench:hardening -- [--root DIR] [--scenarios lock,flood,uploads] [--chunked] [--authenticated]
 *
 * --chunked sends the uploads without a Content-Length; --authenticated sends them with a valid key.
 *
 * --root runs the service of another checkout (e.g. the unmodified code, for a
 * "before" figure); its admin CLI creates the keys. Every loop is bounded in count
 * and time, and every request goes to 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { createLiveKey as createKey, startBenchService, type BenchService } from './lib/bench-service.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: new URL('..', import.meta.url).pathname },
    scenarios: { type: 'string', default: 'lock,flood,uploads' },
    'lock-seconds': { type: 'string', default: '12' },
    'flood-rate': { type: 'string', default: '300' },
    'flood-addresses': { type: 'string', default: '20000' },
    uploads: { type: 'string', default: '1500' },
    'upload-bytes': { type: 'string', default: String(1_047_000) },
    chunked: { type: 'boolean', default: false },
    authenticated: { type: 'boolean', default: false },
    'metrics-url': { type: 'string' },
  },
});
const root = resolve(values.root!);
const scenarios = values.scenarios!.split(',').map((s) => s.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HOST = '127.0.0.1';

function uptime(): string {
  return `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`;
}

type Service = BenchService;

const startService = (extraEnv: Record<string, string> = {}): Promise<Service> =>
  startBenchService(root, 'hardening', extraEnv);

const createLiveKey = (service: Service, stops: number): string => createKey(root, service, stops);

interface Timed {
  status: number | string;
  ms: number;
}

/** One request on its own agent (so a flood queued on another agent does not delay it). */
function request(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    agent?: http.Agent;
    timeoutMs?: number;
  } = {},
): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, agent: init.agent, timeout: init.timeoutMs ?? 30_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        res.on('error', () => resolve({ status: 'error', ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) =>
      resolve({ status: (err as Error).message === 'timeout' ? 'timeout' : 'error', ms: performance.now() - started }),
    );
    if (init.body) req.write(init.body);
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function latencySummary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  return `n=${s.length} p50 ${percentile(s, 50).toFixed(1)} ms, p99 ${percentile(s, 99).toFixed(1)} ms, max ${s[s.length - 1]?.toFixed(1)} ms`;
}

/** Polls /healthz every `everyMs` until `until()` is true or `maxMs` passes. */
async function pollHealth(url: string, everyMs: number, maxMs: number, until: () => boolean): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const deadline = performance.now() + maxMs;
  while (!until() && performance.now() < deadline) {
    const started = performance.now();
    const r = await request(`${url}/healthz`, { agent, timeoutMs: 30_000 });
    latencies.push(r.ms);
    const wait = everyMs - (performance.now() - started);
    if (wait > 0) await sleep(wait);
  }
  agent.destroy();
  return latencies;
}

async function eventLoopMaxMs(service: Service): Promise<number | null> {
  const url = values['metrics-url'] ?? `${service.url}/metrics`;
  try {
    const text = await (await fetch(url)).text();
    const m = /^nodejs_eventloop_lag_max_seconds\s+([\d.e+-]+)/m.exec(text);
    return m ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

const optimizeBody = JSON.stringify({
  start: { latitude: 48.8566, longitude: 2.3522 },
  stops: [
    { id: 'a', latitude: 48.8606, longitude: 2.3376 },
    { id: 'b', latitude: 48.853, longitude: 2.3499 },
    { id: 'c', latitude: 48.8738, longitude: 2.295 },
  ],
});

// ---------------------------------------------------------------- lock
async function lockScenario(): Promise<void> {
  const lockSeconds = Number(values['lock-seconds']);
  const service = await startService();
  try {
    const key = createLiveKey(service, 1_000);
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const warm = await request(`${service.url}/api/v1/optimize`, { method: 'POST', headers, body: optimizeBody });
    if (warm.status !== 200) throw new Error(`warm-up optimize answered ${warm.status}`);
    const databasePath = service.env.DATABASE_PATH;
    const holder =
      existsSync('/usr/bin/sqlite3') || spawnSync('sqlite3', ['-version']).status === 0
        ? spawn('sqlite3', [databasePath, 'BEGIN EXCLUSIVE;', `.shell sleep ${lockSeconds}`, 'COMMIT;'], {
            stdio: 'ignore',
          })
        : spawn(
            process.execPath,
            [
              '-e',
              `const D=require('better-sqlite3');const d=new D(${JSON.stringify(databasePath)});d.exec('BEGIN EXCLUSIVE');` +
                `setTimeout(()=>{d.exec('COMMIT');d.close()},${lockSeconds * 1000})`,
            ],
            { cwd: root, stdio: 'ignore' },
          );
    const holderExited = new Promise((r) => holder.once('exit', r));
    let released = false;
    void holderExited.then(() => {
      released = true;
    });
    // wait until the lock is really held (a write with no busy wait fails)
    const probe = new Database(databasePath, { timeout: 0 });
    for (let i = 0; i < 100; i++) {
      try {
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        await sleep(20);
      } catch {
        break;
      }
    }
    probe.close();
    const lockedAt = performance.now();
    await eventLoopMaxMs(service); // resets the server's event-loop histogram
    const calls = [0, 1, 2].map(async () => {
      const r = await request(`${service.url}/api/v1/optimize`, {
        method: 'POST',
        headers,
        body: optimizeBody,
        timeoutMs: 60_000,
      });
      return { status: r.status, atS: (performance.now() - lockedAt) / 1000 };
    });
    const health = await pollHealth(service.url, 100, (lockSeconds + 5) * 1000, () => released);
    const results = await Promise.all(calls);
    await holderExited;
    const loopMax = await eventLoopMaxMs(service);
    console.log(`lock: ${lockSeconds} s external BEGIN EXCLUSIVE (${holder.spawnfile})`);
    console.log(
      `  optimize calls during the lock: ${results.map((r) => `${r.status} after ${r.atS.toFixed(1)} s`).join(', ')}`,
    );
    console.log(`  /healthz latency: ${latencySummary(health)}`);
    console.log(
      `  server event-loop delay, max over the lock: ${loopMax === null ? 'n/a' : `${loopMax.toFixed(1)} ms`}`,
    );
  } finally {
    await service.stop();
  }
}

// ---------------------------------------------------------------- flood
async function floodScenario(): Promise<void> {
  const rate = Number(values['flood-rate']);
  const addresses = Number(values['flood-addresses']);
  const service = await startService({ TRUST_PROXY: 'true' });
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const statuses = new Map<string, number>();
    const completions: number[] = [];
    let inFlight = 0;
    let done = false;
    // warm-up (JIT, first allocations): 3 s of the same traffic from other addresses, not measured
    const warmUp: Promise<Timed>[] = [];
    for (let i = 0; i < rate * 3; i++) {
      warmUp.push(
        request(`${service.url}/api/v1/balance`, {
          agent,
          headers: {
            Authorization: `Bearer svc_live_${randomBytes(32).toString('base64url')}`,
            'X-Forwarded-For': `172.16.${(i >> 8) & 255}.${i & 255}`,
          },
        }),
      );
      await sleep(1000 / rate);
    }
    await Promise.all(warmUp);
    await eventLoopMaxMs(service); // resets the server's event-loop histogram
    const started = performance.now();
    const maxMs = Math.ceil(addresses / rate) * 1000 + 60_000;
    const health = pollHealth(service.url, 200, maxMs, () => done);
    let sent = 0;
    for (let i = 0; i < addresses; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (performance.now() - started > maxMs) break;
      if (inFlight >= 2_000) {
        await sleep(5);
        i--;
        continue;
      }
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      inFlight++;
      sent++;
      void request(`${service.url}/api/v1/balance`, {
        agent,
        headers: {
          Authorization: `Bearer svc_live_${randomBytes(32).toString('base64url')}`,
          'X-Forwarded-For': address,
        },
        timeoutMs: 60_000,
      }).then((r) => {
        inFlight--;
        statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1);
        completions.push(performance.now() - started);
      });
    }
    const sendingMs = performance.now() - started;
    for (let i = 0; inFlight > 0 && i < 1_200; i++) await sleep(50);
    done = true;
    const latencies = await health;
    agent.destroy();
    const loopMax = await eventLoopMaxMs(service);
    const totalS = (performance.now() - started) / 1000;
    const throughput = (fromS: number, toS: number) =>
      completions.filter((t) => t >= fromS * 1000 && t < toS * 1000).length / (toS - fromS);
    const lastS = sendingMs / 1000;
    console.log(
      `flood: ${sent} failed logins offered at ${rate}/s from ${addresses} addresses (X-Forwarded-For, TRUST_PROXY=true)`,
    );
    console.log(
      `  statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}; sending took ${(sendingMs / 1000).toFixed(1)} s, all answered after ${totalS.toFixed(1)} s`,
    );
    console.log(
      `  answers/s: first 10 s ${throughput(0, 10).toFixed(0)}, last 10 s of sending ${throughput(Math.max(0, lastS - 10), lastS).toFixed(0)}`,
    );
    console.log(
      `  /healthz latency during the flood: ${latencySummary(latencies)}; second half: ${latencySummary(latencies.slice(Math.floor(latencies.length / 2)))}`,
    );
    console.log(
      `  server event-loop delay, max over the flood: ${loopMax === null ? 'n/a' : `${loopMax.toFixed(1)} ms`}`,
    );
  } finally {
    await service.stop();
  }
}

// ---------------------------------------------------------------- uploads
async function uploadsScenario(): Promise<void> {
  const count = Number(values.uploads);
  const bytes = Number(values['upload-bytes']);
  const chunked = values.chunked!;
  const service = await startService();
  const sockets: Socket[] = [];
  try {
    const authorization = values.authenticated ? `Authorization: Bearer ${createLiveKey(service, 1_000)}\r\n` : '';
    await sleep(500);
    const baseline = service.rssMb();
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const declared = bytes + 1_000; // just under the 1 MiB default body limit; the last 1,000 bytes never come
    let closedByServer = 0;
    const closedAt: number[] = [];
    const started = performance.now();
    const send = (socket: Socket): Promise<void> =>
      new Promise((resolve) => {
        let left = bytes;
        const head =
          `POST /api/v1/optimize HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\n${authorization}` +
          (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${declared}\r\n\r\n`);
        socket.write(head);
        const pump = (): void => {
          while (left > 0 && !socket.destroyed) {
            const n = Math.min(left, chunk.length);
            left -= n;
            const data = chunk.subarray(0, n);
            const ok = chunked
              ? socket.write(`${n.toString(16)}\r\n`) && socket.write(data) && socket.write('\r\n')
              : socket.write(data);
            if (!ok) {
              socket.once('drain', pump);
              return;
            }
          }
          resolve();
        };
        pump();
        socket.once('close', () => resolve());
      });
    const batch = 50;
    for (let i = 0; i < count && performance.now() - started < 120_000; i += batch) {
      const group: Promise<void>[] = [];
      for (let j = i; j < Math.min(count, i + batch); j++) {
        const socket = connect(service.port, HOST);
        socket.on('error', () => {});
        socket.on('data', () => {});
        socket.once('close', () => {
          closedByServer++;
          closedAt.push(performance.now() - started);
        });
        sockets.push(socket);
        group.push(new Promise<void>((r) => socket.once('connect', () => r())).then(() => send(socket)));
      }
      await Promise.race([Promise.all(group), sleep(30_000)]);
    }
    const sentMs = performance.now() - started;
    const samples: Array<[number, number]> = [];
    let peak = service.rssMb();
    for (let t = 0; t <= 20; t++) {
      const rss = service.rssMb();
      peak = Math.max(peak, rss);
      samples.push([t, rss]);
      if (t < 20) await sleep(1_000);
    }
    const health = await request(`${service.url}/healthz`, { timeoutMs: 10_000 });
    const closed = [...closedAt].sort((a, b) => a - b);
    console.log(
      `uploads: ${sockets.length} ${values.authenticated ? 'authenticated' : 'anonymous'} ${chunked ? 'chunked ' : ''}uploads of ${bytes} bytes (declared ${chunked ? 'none' : declared}), then stalled`,
    );
    console.log(
      `  sending took ${(sentMs / 1000).toFixed(1)} s; server RSS baseline ${baseline.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, ` +
        `+0 s ${samples[0][1].toFixed(0)} MB, +10 s ${samples[10][1].toFixed(0)} MB, +20 s ${samples[20][1].toFixed(0)} MB after sending`,
    );
    console.log(
      `  connections closed by the server within ${(sentMs / 1000 + 20).toFixed(0)} s: ${closedByServer}/${sockets.length}` +
        (closed.length ? ` (median at ${(percentile(closed, 50) / 1000).toFixed(1)} s)` : '') +
        `; /healthz then ${health.status} in ${health.ms.toFixed(1)} ms`,
    );
  } finally {
    for (const s of sockets) s.destroy();
    await service.stop();
  }
}

console.log(`bench-hardening: service from ${root}; ${uptime()}`);
for (const scenario of scenarios) {
  if (scenario === 'lock') await lockScenario();
  else if (scenario === 'flood') await floodScenario();
  else if (scenario === 'uploads') await uploadsScenario();
  else throw new Error(`unknown scenario ${scenario} (lock, flood, uploads)`);
}
console.log(`done; ${uptime()}`);
