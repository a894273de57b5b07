/**
 * The service as the HTTP benches run it: the sources of a checkout (`root`, so one bench can measure another
 * checkout) started with the start command's node flags on a fresh SQLite database in a temp dir, on a free
 * port; ready once `/readyz` answers. `stop()` kills it and removes the dir. Keys are made with the admin CLI of
 * the same checkout.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.js';
import { SERVER_NODE_FLAGS } from './server-flags.mjs';

export const BENCH_HOST = '127.0.0.1';

export interface BenchService {
  url: string;
  port: number;
  child: ChildProcess;
  dir: string;
  env: Record<string, string>;
  /** Resident memory of the process now, MB. */
  rssMb(): number;
  stop(): Promise<void>;
}

export async function startBenchService(
  root: string,
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<BenchService> {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOST: BENCH_HOST,
    PORT: String(port),
    DATABASE_PATH: join(dir, 'service.db'),
    OUTBOX_DIR: join(dir, 'outbox'),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    if (stderr.length < 10_000) stderr += d;
  });
  const url = `http://${BENCH_HOST}:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      /* starting */
    }
    if (child.exitCode !== null || i > 600) throw new Error(`service did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const pid = child.pid!;
  return {
    url,
    port,
    child,
    dir,
    env,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A live key with `stops`, made by the checkout's admin CLI on the service's database. */
export function createLiveKey(root: string, service: Pick<BenchService, 'env'>, stops: number): string {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/admin.ts', 'keys', 'create', '--kind', 'live', '--stops', String(stops)],
    { cwd: root, env: service.env, encoding: 'utf8', timeout: 60_000 },
  );
  const key = r.stdout.trim();
  if (r.status !== 0 || !/^svc_live_/.test(key)) throw new Error(`admin keys create failed: ${r.stderr}`);
  return key;
}
