/**
 * A bench's runs shared among child processes: each child is this same bench command with `--shard I/N --json`
 * (the runs whose index is I modulo N), so each has its own process, module and CPU clock, as two halves of a set
 * run by hand in two shells. The parent takes the children's JSON lines as they come. (Child processes rather than piscina's
 * worker threads: `process.cpuUsage`, the benches' CPU clock, counts every thread of a process.)
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface Shard {
  index: number;
  count: number;
}

/** How the bench's `fail` starts its one line. */
const OWN_PREFIX = 'bench-solver: ';

export const SHARD_USAGE = '--shard I/N (0 <= I < N: the runs whose index is I modulo N)';

/** `I/N` with 0 <= I < N, else null. */
export function parseShard(text: string): Shard | null {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return null;
  const shard = { index: Number(m[1]), count: Number(m[2]) };
  return shard.index < shard.count ? shard : null;
}

/** Run `index` belongs to `shard` (every run without one). */
export function inShard(shard: Shard | null, index: number): boolean {
  return shard === null || index % shard.count === shard.index;
}

/**
 * Runs this bench command (`process.argv`, without the options `drop` names and their values) once per shard of
 * `workers`, and hands each JSON line a child prints to `onLine` as it comes (parsed). A child that fails ends the
 * others; `fail` gets its one-line message (`bench-solver: …`), or its stderr is passed on whole when it has none.
 */
export async function runShards(
  workers: number,
  drop: string[],
  fail: (msg: string) => never,
  onLine: (line: Record<string, unknown>) => void,
): Promise<void> {
  const args: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (drop.includes(argv[i])) i++;
    else args.push(argv[i]);
  }
  const children = Array.from({ length: workers }, (_, index) =>
    spawn(
      process.execPath,
      [...process.execArgv, process.argv[1], ...args, '--shard', `${index}/${workers}`, '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  const outcomes = await Promise.all(
    children.map(
      (child) =>
        new Promise<{ code: number; stderr: string }>((resolve) => {
          let stderr = '';
          createInterface({ input: child.stdout }).on('line', (l) => {
            if (l.startsWith('{')) onLine(JSON.parse(l) as Record<string, unknown>);
          });
          child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
          child.on('close', (code, signal) => {
            if (code !== 0) for (const other of children) if (other !== child) other.kill();
            resolve({ code: code ?? (signal ? 1 : 0), stderr });
          });
        }),
    ),
  );
  const failed = outcomes.find((o) => o.code !== 0 && o.stderr.trim() !== '') ?? outcomes.find((o) => o.code !== 0);
  if (failed) {
    // an expected failure is the bench's own one line; anything else is passed on whole
    const own = failed.stderr.split('\n').find((l) => l.startsWith(OWN_PREFIX));
    if (own) fail(own.slice(OWN_PREFIX.length));
    process.stderr.write(failed.stderr);
    fail(`a worker process failed (exit code ${failed.code})`);
  }
}
