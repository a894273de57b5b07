/** Runs bench:compare as a user would (a child process), into a temp directory. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { RawResult } from '../../scripts/lib/compare/types.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SOLVER_WASM = join(ROOT, 'data/solver/solver.wasm');

export interface CompareRun {
  dir: string;
  status: number | null;
  stderr: string;
  results: RawResult[];
  html: string;
}

export function runCompare(args: string[], dir = mkdtempSync(join(tmpdir(), 'bench-compare-test-'))): CompareRun {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/bench-compare.ts'), ...args, '--out', dir],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 240_000,
    },
  );
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f), 'utf8');
    } catch {
      return '';
    }
  };
  return {
    dir,
    status: r.status,
    stderr: r.stderr,
    results: read('results.jsonl')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as RawResult),
    html: read('report.html'),
  };
}

/** Two builds: the committed module and a byte copy of it under another name. */
export function twoBuilds(): string[] {
  const copy = join(mkdtempSync(join(tmpdir(), 'bench-compare-b-')), 'B.wasm');
  copyFileSync(SOLVER_WASM, copy);
  return ['--build', `A=${SOLVER_WASM}`, '--build', `B=${copy}`];
}
