import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baseDir } from '../../src/assets.js';
import { freePort } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/** Processes of a process group (Linux /proc): pid and command line. */
function group(pgid: number): Array<{ pid: number; cmdline: string }> {
  const out: Array<{ pid: number; cmdline: string }> = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
      out.push({
        pid: Number(name),
        cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim(),
      });
    } catch {
      /* gone */
    }
  }
  return out;
}

test(
  'npm start: npm and one node process running the built server (no tsx); SIGTERM to the PID npm start gave stops both, exit 0',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const dir = tempDir('ros-npm-start-');
    const port = await freePort();
    const child = spawn('npm', ['start'], {
      cwd: baseDir(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_PATH: join(dir, 'db.sqlite'),
        OUTBOX_DIR: join(dir, 'outbox'),
        SHUTDOWN_DRAIN_MS: '200',
        LOG_LEVEL: 'info',
      },
    });
    let output = '';
    child.stdout!.on('data', (d) => {
      output += d;
    });
    child.stderr!.on('data', (d) => {
      output += d;
    });
    // 'close', not 'exit': the output is read to its end before the exit is looked at
    const exited = new Promise<number | string>((r) => child.once('close', (code, signal) => r(code ?? signal ?? -1)));
    try {
      for (let i = 0; ; i++) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
        } catch {
          /* starting */
        }
        assert.ok(child.exitCode === null && i < 1500, `npm start did not serve:\n${output}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const members = group(child.pid!);
      assert.equal(members.length, 2, JSON.stringify(members));
      const server = members.find((m) => m.pid !== child.pid)!;
      assert.match(server.cmdline, /node( --[\w=-]+)* scripts\/dist\.mjs main$/);
      assert.ok(
        members.every((m) => !/tsx/.test(m.cmdline)),
        'no tsx at run time',
      );
      // /healthz can answer before the start-up line has come through the pipes
      for (let i = 0; !/"node":"v2\d\./.test(output); i++) {
        assert.ok(i < 500, `no start-up line naming the Node version:\n${output}`);
        await new Promise((r) => setTimeout(r, 20));
      }

      process.kill(child.pid!, 'SIGTERM');
      assert.equal(await exited, 0, output);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(group(child.pid!), [], 'nothing left running');
      assert.match(output, /"msg":"stopped"/);
    } finally {
      for (const m of group(child.pid!)) process.kill(m.pid, 'SIGKILL');
    }
  },
);
