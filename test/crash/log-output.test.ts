/**
 * A log output that cannot be written never takes the service down: stdout on a
 * full disk (a real tmpfs, when the test runs as root) or a closed pipe. The
 * service keeps answering, counts the dropped lines in /metrics, writes one
 * warning when logging works again, and SIGTERM still ends the process.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { freePort } from '../helpers/process.js';
import { PARIS_START, coordinateStops, tempDir } from '../helpers/server.js';

const root = new URL('../..', import.meta.url).pathname;

interface Service {
  url: string;
  child: ChildProcess;
  exited: Promise<number | string>;
}

async function startService(stdout: number | 'pipe', databasePath: string): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_PATH: databasePath,
      OUTBOX_DIR: join(databasePath, '..', 'outbox'),
      LOG_LEVEL: 'info',
      METRICS_TOKEN,
    },
    stdio: ['ignore', stdout, 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* starting */
    }
    if (child.exitCode !== null || i > 400) throw new Error(`service did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, child, exited };
}

async function liveKey(databasePath: string): Promise<string> {
  const seed = new SqliteStore(databasePath);
  const { key } = await new Billing(seed, {
    limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
  }).issueKey('live', { stops: 1_000 });
  await seed.close();
  return key;
}

/** /metrics is not public: the test serves it on the API port behind a token. */
const METRICS_TOKEN = 'log-output-test-metrics-token';

async function droppedLines(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^route_optimizer_log_lines_dropped_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** Fills the filesystem of `path` to the last byte, then the slack of the log file's last page (with empty lines). */
function fill(path: string, logPath: string): void {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const fd = openSync(path, 'w');
  try {
    for (let size = chunk.length; size >= 1;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch {
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  const log = openSync(logPath, 'a');
  try {
    for (let i = 0; i < 8192; i++) writeSync(log, '\n');
  } catch {
    // full
  } finally {
    closeSync(log);
  }
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the exit code, or 'still running' after `ms`. */
const exitWithin = (service: Service, ms: number) =>
  Promise.race([service.exited, new Promise<string>((r) => setTimeout(() => r('still running'), ms))]);

async function traffic(url: string, key: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++)
    statuses.push(
      (await fetch(`${url}/api/v1/balance`, { headers: { Authorization: 'Bearer svc_live_nope' } })).status,
    );
  const res = await fetch(`${url}/api/v1/optimize`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ start: PARIS_START, stops: coordinateStops(3) }),
  });
  statuses.push(res.status);
  statuses.push((await fetch(`${url}/healthz`)).status);
  return statuses;
}

test('stdout on a full disk: requests are served, lines dropped and counted, one warning when space returns, SIGTERM exits', async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root to mount a small tmpfs for the log file (CI runs as root)');
    return;
  }
  const mountPoint = tempDir('ros-logfull-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint]);
  const logPath = join(mountPoint, 'service.log');
  const logFd = openSync(logPath, 'a');
  const databasePath = join(tempDir('ros-logfull-db-'), 'service.db');
  let service: Service | undefined;
  try {
    const key = await liveKey(databasePath);
    service = await startService(logFd, databasePath);
    const ballast = join(mountPoint, 'ballast');
    fill(ballast, logPath);

    const statuses = await traffic(service.url, key);
    assert.deepEqual(statuses, [...Array(20).fill(401), 200, 200], 'the service keeps answering');
    const dropped = await droppedLines(service.url);
    assert.ok(dropped >= 21, `route_optimizer_log_lines_dropped_total ${dropped}`);

    unlinkSync(ballast);
    let log = '';
    for (let i = 0; i < 60 && !log.includes('logging resumed'); i++) {
      await fetch(`${service.url}/healthz`);
      await new Promise((r) => setTimeout(r, 100));
      log = readFileSync(logPath, 'utf8');
    }
    await traffic(service.url, key);
    await new Promise((r) => setTimeout(r, 300));
    const written = readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    // a line the service was writing when the disk filled up may be cut short; it stays on a line of its own
    const fragments = written.filter((l) => !parses(l));
    assert.ok(fragments.length <= 1, `at most the one line cut by the full disk: ${fragments.join(' | ')}`);
    const lines = written
      .filter(parses)
      .map((l) => JSON.parse(l) as { msg: string; level: number; droppedLines?: number });
    const warnings = lines.filter((l) => l.msg.startsWith('logging resumed'));
    assert.equal(warnings.length, 1, 'one warning when logging resumes');
    assert.equal(warnings[0].level, 40);
    assert.ok(warnings[0].droppedLines! >= dropped, `${warnings[0].droppedLines} < ${dropped}`);
    assert.match(warnings[0].msg, /dropped while the log output could not be written \(ENOSPC\)/);
    assert.ok(lines.filter((l) => l.msg === 'request').length >= 20, 'requests are logged again');

    // the disk fills up again, then the service is told to stop: it exits (it used to spin in its log flush forever)
    fill(ballast, logPath);
    await traffic(service.url, key);
    service.child.kill('SIGTERM');
    assert.equal(await exitWithin(service, 15_000), 0);
  } finally {
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
    await service?.exited;
    closeSync(logFd);
    execFileSync('umount', [mountPoint]);
  }
});

test('stdout is a pipe whose reader went away (EPIPE): requests are served, lines counted as dropped, SIGTERM exits', async () => {
  const databasePath = join(tempDir('ros-logpipe-'), 'service.db');
  const key = await liveKey(databasePath);
  const service = await startService('pipe', databasePath);
  try {
    service.child.stdout!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const statuses = await traffic(service.url, key);
    assert.deepEqual(statuses, [...Array(20).fill(401), 200, 200]);
    assert.ok((await droppedLines(service.url)) >= 21);
    service.child.kill('SIGTERM');
    assert.equal(await exitWithin(service, 15_000), 0);
  } finally {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    await service.exited;
  }
});
