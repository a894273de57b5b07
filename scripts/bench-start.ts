/**
 * Start-up benchmark: how long from spawning the service to GET /healthz answering 200, how many
 * OS processes it runs as, and whether SIGTERM to the PID that was started stops everything.
 * Each run: a fresh SQLite file, a free port, SHUTDOWN_DRAIN_MS as configured (default 2 s).
 *
 *   npm run --silent bench:start -- [--runs N] [--command "npm start"] [--json]
 *   npm run --silent bench:start -- --command "dist/route-optimizer serve"
 *   npm run --silent bench:start -- --cwd ../other-checkout     (e.g. the previous release, for a before/after)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { baseDir } from '../src/assets.js';
import { freePort } from './lib/service-process.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    command: { type: 'string', default: 'npm start' },
    json: { type: 'boolean', default: false },
    cwd: { type: 'string' },
  },
});

/** Processes of a process group, from /proc (Linux): "pid name" for each. */
function groupMembers(pgid: number): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' '); // state ppid pgrp …
      if (Number(fields[2]) === pgid && fields[0] !== 'Z')
        out.push(`${name} ${stat.slice(stat.indexOf('(') + 1, close)}`);
    } catch {
      /* gone */
    }
  }
  return out;
}

interface Run {
  startMs: number;
  processes: string[];
  exitCode: number | string;
  stopMs: number;
  leftover: string[];
}

async function once(): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  const port = await freePort();
  const [cmd, ...args] = values.command!.split(' ').filter((w) => w !== '');
  const started = performance.now();
  // its own process group, so that whatever it leaves behind can be found
  const child = spawn(cmd!, args, {
    cwd: values.cwd ?? baseDir(),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'db.sqlite'),
      OUTBOX_DIR: join(dir, 'outbox'),
      LOG_LEVEL: 'warn',
    },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      /* not yet */
    }
    if (child.exitCode !== null) throw new Error(`${values.command} exited before /healthz answered:\n${stderr}`);
    if (performance.now() - started > 60_000) throw new Error(`${values.command}: no /healthz within 60 s:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - started;
  const processes = groupMembers(child.pid!);
  const stopping = performance.now();
  process.kill(child.pid!, 'SIGTERM'); // the PID a process manager knows, not the group
  const exitCode = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 60_000))]);
  const stopMs = performance.now() - stopping;
  await new Promise((r) => setTimeout(r, 500));
  const leftover = groupMembers(child.pid!);
  for (const p of leftover) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  return { startMs, processes, exitCode, stopMs, leftover };
}

const runs: Run[] = [];
for (let i = 0; i < Number(values.runs); i++) {
  const r = await once();
  runs.push(r);
  if (values.json) console.log(JSON.stringify(r));
  else
    process.stderr.write(
      `  run ${i + 1}: /healthz after ${r.startMs.toFixed(0)} ms, ${r.processes.length} process(es) [${r.processes.map((p) => p.split(' ')[1]).join(', ')}], SIGTERM → exit ${r.exitCode} in ${r.stopMs.toFixed(0)} ms, ${r.leftover.length} left running\n`,
    );
}
if (!values.json) {
  const sorted = runs.map((r) => r.startMs).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `${values.command}: /healthz after median ${median.toFixed(0)} ms (min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}) over ${runs.length} runs; ` +
      `processes ${[...new Set(runs.map((r) => r.processes.length))].join('/')}; exit codes ${[...new Set(runs.map((r) => r.exitCode))].join('/')}; ` +
      `left running after SIGTERM: ${runs.reduce((t, r) => t + r.leftover.length, 0)}`,
  );
}
