// Is dist/ up to date with its sources? Cheap (stats only, no esbuild), so `npm start` can ask at
// every start. dist/build-info.json is written last by a build; any source newer than it, or a
// missing entry, means the build must run again.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './runtime.mjs';

export const DIST = join(ROOT, 'dist');
export const BUILD_INFO = join(DIST, 'build-info.json');

/** dist/<name>.js ← source: the built server, admin CLI, solver worker, executable entry and benches. */
export const ENTRIES = {
  main: 'src/main.ts',
  admin: 'scripts/admin.ts',
  'solver-worker': 'src/solver/worker.ts',
  'route-optimizer': 'src/executable.ts',
  'bench-solver': 'scripts/bench-solver.ts',
  'bench-api': 'scripts/bench-api.ts',
  'bench-deadlines': 'scripts/bench-deadlines.ts',
  'bench-soak': 'scripts/bench-soak.ts',
  'bench-instances': 'scripts/bench-instances.ts',
  'bench-start': 'scripts/bench-start.ts',
};

/** What a build reads: code, data files and the installed dependencies. */
const INPUTS = [
  'src',
  'scripts',
  'test/helpers',
  'data/solver/solver.wasm',
  'data/gazetteer',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'node_modules/.package-lock.json',
];

function newestMtime(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** Null when dist/ is current, else why it is not. */
export function staleReason() {
  if (!existsSync(BUILD_INFO)) return 'dist/ has not been built';
  const missing = Object.keys(ENTRIES).find((name) => !existsSync(join(DIST, `${name}.js`)));
  if (missing) return `dist/${missing}.js is missing`;
  const built = statSync(BUILD_INFO).mtimeMs;
  const changed = INPUTS.find((p) => newestMtime(join(ROOT, p)) > built);
  return changed ? `${changed} changed since the last build` : null;
}

export function readBuildInfo() {
  return JSON.parse(readFileSync(BUILD_INFO, 'utf8'));
}

/**
 * Runs fn while holding dist/.build-lock (a directory: creating it is atomic), so that processes
 * starting together (tests calling the admin CLI in parallel) never build over each other.
 * A lock whose owner process is gone is taken over.
 */
export async function withBuildLock(fn) {
  const lock = join(DIST, '.build-lock');
  mkdirSync(DIST, { recursive: true });
  for (let waited = 0; ; waited += 100) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        /* being written or removed */
      }
      if (owner > 0 && !isAlive(owner)) rmSync(lock, { recursive: true, force: true });
      else if (waited > 120_000)
        throw new Error(`dist/ is locked by process ${owner} for more than 2 minutes (remove ${lock} if it is gone)`);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}
