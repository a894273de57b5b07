/**
 * Runs the real service as a child process: src/main.ts through tsx (tests), or dist/main.js
 * when this helper itself runs from the build (the benchmarks, so they measure what ships).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { baseDir, layout } from '../../src/assets.js';
import { SERVER_NODE_FLAGS } from './server-flags.mjs';

const root = baseDir();
const entry = layout === 'source' ? ['--import', 'tsx', 'src/main.ts'] : [...SERVER_NODE_FLAGS, 'dist/main.js'];

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

/** Spawns the service without waiting for it to be ready (a start that is meant to fail, for instance). */
export function spawnServiceProcess(env: Record<string, string>, port: number): ServiceProcess {
  const child = spawn(process.execPath, entry, {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => {
    output += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { url: `http://127.0.0.1:${port}`, child, output: () => output, exited };
}

/**
 * How long a service process may take to answer /readyz: measured 9–10 s for three started at once on an idle
 * 2-core machine and 20–23 s under load, so a count of polls (each a fetch plus 50 ms) was too tight.
 */
const START_TIMEOUT_MS = 90_000;

export async function startServiceProcess(env: Record<string, string>, port?: number): Promise<ServiceProcess> {
  const started = spawnServiceProcess(env, port ?? (await freePort()));
  const giveUpAt = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      if ((await fetch(`${started.url}/readyz`)).ok) break;
    } catch {
      /* starting */
    }
    if (started.child.exitCode !== null || performance.now() > giveUpAt)
      throw new Error(`service did not start:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return started;
}
