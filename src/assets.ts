/**
 * Where the service finds its data files (solver module, gazetteer, console pages, migrations,
 * Swagger UI) and its worker script, whichever way it runs:
 *   - source  (tsx, tests): in the repository, at the paths of asset-sources.json;
 *   - dist    (npm start, npm run build): dist/assets/<key>, copied there by scripts/build.mjs;
 *   - sea     (the single executable dist/route-optimizer): the executable's own assets (node:sea).
 *     Each is written on first use into a private directory (mode 0700, under TMPDIR) that is removed
 *     at exit: the native SQLite addon and the worker scripts must be files, and the other consumers
 *     then read files the same way in all three layouts.
 * An asset has one key ("solver/solver.wasm"); a key ending in a folder name ("console") is a directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as sea from 'node:sea';
import { fileURLToPath } from 'node:url';
import sources from './asset-sources.json' with { type: 'json' };

export type Layout = 'source' | 'dist' | 'sea';

/** Set by scripts/build.mjs (esbuild `define`); absent when the TypeScript runs as is. */
declare const __ROS_LAYOUT__: 'dist' | 'sea' | undefined;

export const layout: Layout = typeof __ROS_LAYOUT__ === 'undefined' ? 'source' : __ROS_LAYOUT__;

/** The repository (source) or dist/ (built): the folder of this module's (bundled) file, one level up for src/. */
function codeDir(): string {
  return dirname(fileURLToPath(import.meta.url));
}

/** Relative paths in the configuration (DATABASE_PATH, OUTBOX_DIR, SOLVER_WASM) resolve against this folder:
 * the repository for `npm start` and the tests, the working directory for the single executable. */
export function baseDir(): string {
  return layout === 'sea' ? process.cwd() : resolve(codeDir(), '..');
}

/** A readable path for an asset file or directory. */
export function assetPath(key: string): string {
  const k = key.replace(/\/+$/, '');
  switch (layout) {
    case 'source':
      return sourcePath(k);
    case 'dist':
      return join(codeDir(), 'assets', k);
    case 'sea':
      return extracted(k);
  }
}

/** The file piscina loads in each solver thread. */
export function solverWorkerFile(): string {
  switch (layout) {
    case 'source':
      return join(codeDir(), 'solver', 'worker.mjs');
    case 'dist':
      return join(codeDir(), 'solver-worker.js');
    case 'sea':
      return extracted('workers/solver-worker.cjs');
  }
}

/** The single executable: piscina's own thread bootstrap (the bundle cannot point into node_modules). */
export function piscinaWorkerFile(): string {
  return extracted('workers/piscina-worker.cjs');
}

let nativeSqlite: object | undefined;

/** better-sqlite3's `nativeBinding`: undefined (the package finds its addon) except in the single executable,
 * where the addon embedded as an asset is loaded (and its file removed: the mapping stays). */
export function sqliteNativeBinding(): object | undefined {
  if (layout !== 'sea') return undefined;
  if (nativeSqlite === undefined) {
    const file = extracted('native/better_sqlite3.node');
    const module = { exports: {} };
    process.dlopen(module, file);
    rmSync(file, { force: true });
    nativeSqlite = module.exports;
  }
  return nativeSqlite;
}

function sourcePath(key: string): string {
  const root = resolve(codeDir(), '..');
  const table = Object.entries(sources as Record<string, string>);
  for (const [k, path] of table) {
    if (k === key) return join(root, path); // a listed file
    if (k.endsWith('/') && (key === k.slice(0, -1) || key.startsWith(k)))
      return join(root, path, key.slice(k.length)).replace(/\/$/, ''); // in a listed folder
  }
  // the folder of listed files (swagger-ui, gazetteer)
  const file = table.find(([k]) => k.startsWith(`${key}/`) && !k.slice(key.length + 1).includes('/'));
  if (file) return dirname(join(root, file[1]));
  throw new Error(`unknown asset ${key}`);
}

let privateDir: string | null = null;
const written = new Set<string>();

/** Writes the executable's assets under `key` (a file, or every file of a directory) once; returns their path. */
function extracted(key: string): string {
  if (privateDir === null) {
    privateDir = mkdtempSync(join(tmpdir(), 'route-optimizer-'));
    const dir = privateDir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const keys = sea.getAssetKeys().filter((k) => k === key || k.startsWith(`${key}/`));
  if (keys.length === 0) throw new Error(`the executable has no asset "${key}"`);
  for (const k of keys) {
    if (written.has(k)) continue;
    const file = join(privateDir, k);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, new Uint8Array(sea.getRawAsset(k)), { mode: 0o600 });
    written.add(k);
  }
  return join(privateDir, key);
}
