/**
 * The solver.wasm an earlier commit shipped, read from git history: the tests that check older ABIs still load
 * (or are refused) use these builds. A shallow clone without that commit has none: the test is then skipped.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The bytes of `commit`'s data/solver/solver.wasm, or null when this checkout's history does not reach it. */
export function solverBuildAt(commit: string): Buffer | null {
  try {
    return execFileSync('git', ['show', `${commit}:data/solver/solver.wasm`], {
      cwd: ROOT,
      maxBuffer: 16 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}

/**
 * That build as a file of its own, removed after the test; null, with the test skipped (naming `what`), when
 * the history does not reach it.
 */
export function solverBuildFile(t: TestContext, commit: string, what: string): string | null {
  const bytes = solverBuildAt(commit);
  if (!bytes) {
    t.skip(`${what} is not in this checkout's history`);
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'solver-build-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, `${commit}.wasm`);
  writeFileSync(file, bytes);
  return file;
}
