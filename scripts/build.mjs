#!/usr/bin/env node
// The build, with esbuild (one tool for both outputs: per-entry ES modules for dist/, and the single
// CommonJS file a Node single executable needs; tsc can only transpile file by file).
//
//   node scripts/build.mjs            dist/: main.js (server), admin.js, solver-worker.js,
//                                     route-optimizer.js, bench-*.js, assets/ (data files)
//   node scripts/build.mjs --binary   the above, then dist/route-optimizer: the runtime's own node
//                                     binary with the bundled server and every asset injected (SEA)
//
// dist/*.js import their npm dependencies from node_modules (plain `node dist/main.js`, no tsx);
// the executable needs nothing beside itself.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { BUILD_INFO, DIST, ENTRIES, withBuildLock } from './lib/build-state.mjs';
import { explainInjectOutput, injectCapturingOutput } from './lib/postject-output.mjs';
import { ROOT, majorOf, requiredMajor } from './lib/runtime.mjs';
import { SERVER_NODE_FLAGS } from './lib/server-flags.mjs';

const require = createRequire(join(ROOT, 'package.json'));
const SEA_DIR = join(DIST, 'sea');
export const BINARY = join(DIST, 'route-optimizer');
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const say = (line) => process.stderr.write(`build: ${line}\n`);

/** Every asset: key → absolute source file, from src/asset-sources.json (folders expanded). */
export function assetFiles() {
  const sources = JSON.parse(readFileSync(join(ROOT, 'src', 'asset-sources.json'), 'utf8'));
  const files = new Map();
  const walk = (dir, prefix) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full, `${prefix}${name}/`);
      else files.set(`${prefix}${name}`, full);
    }
  };
  for (const [key, path] of Object.entries(sources)) {
    const full = join(ROOT, path);
    if (!existsSync(full)) throw new Error(`asset ${key}: ${path} does not exist`);
    if (key.endsWith('/')) walk(full, key);
    else files.set(key, full);
  }
  return files;
}

async function esbuild() {
  try {
    return await import('esbuild');
  } catch {
    throw new Error('esbuild is not installed: the build needs the dev dependencies (npm ci, not npm ci --omit=dev)');
  }
}

/** Fails on any esbuild warning: an import.meta in a CommonJS bundle, for one, would break at run time. */
function checkWarnings(result, allowed = () => false) {
  const bad = result.warnings.filter((w) => !allowed(w));
  if (bad.length > 0) {
    throw new Error(
      `esbuild warnings:\n${bad.map((w) => `  ${w.location?.file ?? ''}:${w.location?.line ?? ''} ${w.text}`).join('\n')}`,
    );
  }
}

const pkg = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** dist/: the entries as ES modules (dependencies stay in node_modules) and the data files in dist/assets/. */
export async function buildDist() {
  const { build, stop } = await esbuild();
  try {
    await distBundles(build);
  } finally {
    await stop(); // esbuild's service process would otherwise outlive the build (npm start builds, then serves)
  }
}

async function distBundles(build) {
  const started = Date.now();
  rmSync(BUILD_INFO, { force: true }); // first: from here on, dist/ reads as stale to every other process
  for (const name of readdirSync(DIST)) {
    if (/\.js(\.map)?$/.test(name) || name === 'assets' || name === 'build-info.json')
      rmSync(join(DIST, name), { recursive: true, force: true });
  }
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, src]) => [name, join(ROOT, src)])),
    outdir: DIST,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${requiredMajor()}`,
    sourcemap: 'linked',
    define: { __ROS_LAYOUT__: '"dist"' },
    logLevel: 'silent',
  });
  checkWarnings(result);
  for (const [key, file] of assetFiles()) {
    const target = join(DIST, 'assets', key);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  writeFileSync(
    BUILD_INFO,
    `${JSON.stringify({ version: pkg().version, node: process.version, builtAt: new Date().toISOString() }, null, 2)}\n`,
  );
  say(`dist/ built in ${Date.now() - started} ms`);
}

/** piscina starts each thread from its own dist/worker.js beside its index.js; in the bundle that file
 * does not exist, so its path comes from assets.ts (the worker bootstrap, bundled separately). */
const piscinaWorkerPath = {
  name: 'piscina-worker-path',
  setup(b) {
    b.onLoad({ filter: /[\\/]piscina[\\/]dist[\\/]index\.js$/ }, ({ path }) => {
      const code = readFileSync(path, 'utf8');
      const original = "(0, node_path_1.resolve)(__dirname, 'worker.js')";
      if (code.split(original).length !== 2)
        throw new Error(`piscina ${path}: expected one "${original}"; update the build for this piscina version`);
      const assets = JSON.stringify(join(ROOT, 'src', 'assets.ts'));
      return {
        contents: `const __rosAssets = require(${assets});\n${code.replace(original, '__rosAssets.piscinaWorkerFile()')}`,
        loader: 'js',
        resolveDir: dirname(path),
      };
    });
  },
};

/** The addon file better-sqlite3 loads on this machine (built for this runtime by scripts/build-native.mjs). */
function sqliteAddon() {
  const file = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build:native`);
  return file;
}

/** dist/route-optimizer: a copy of this runtime's node binary with the single-executable blob injected. */
export async function buildBinary() {
  if (majorOf(process.version) < requiredMajor())
    throw new Error(`the executable embeds the node that builds it, and this one is ${process.version}`);
  if (process.platform !== 'linux') say(`warning: building on ${process.platform}; only linux-x64 is tested`);
  const { build, stop } = await esbuild();
  try {
    await seaBinary(build);
  } finally {
    await stop();
  }
}

async function seaBinary(build) {
  const started = Date.now();
  rmSync(SEA_DIR, { recursive: true, force: true });
  mkdirSync(SEA_DIR, { recursive: true });
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${requiredMajor()}`,
    logLevel: 'silent',
    define: { __ROS_LAYOUT__: '"sea"' },
  };
  const seaMain = join(SEA_DIR, 'route-optimizer.cjs');
  const bundles = [
    // piscina's thread bootstrap; it requires @napi-rs/nice only if installed, inside a try
    {
      ...common,
      entryPoints: [join(dirname(require.resolve('piscina')), 'worker.js')],
      outfile: join(SEA_DIR, 'piscina-worker.cjs'),
      external: ['@napi-rs/nice'],
    },
    { ...common, entryPoints: [join(ROOT, 'src', 'solver', 'worker.ts')], outfile: join(SEA_DIR, 'solver-worker.cjs') },
    // pg-native: only behind pg.native, which the store never touches
    {
      ...common,
      entryPoints: [join(ROOT, 'src', 'executable.ts')],
      outfile: seaMain,
      plugins: [piscinaWorkerPath],
      external: ['pg-native'],
    },
  ];
  for (const options of bundles) {
    const result = await build(options);
    // assets.ts reads import.meta.url only in the source and dist layouts, never in the executable
    checkWarnings(result, (w) => /import\.meta/.test(w.text) && w.location?.file?.endsWith('src/assets.ts'));
  }

  const assets = Object.fromEntries(assetFiles());
  assets['workers/piscina-worker.cjs'] = join(SEA_DIR, 'piscina-worker.cjs');
  assets['workers/solver-worker.cjs'] = join(SEA_DIR, 'solver-worker.cjs');
  assets['native/better_sqlite3.node'] = sqliteAddon();
  const blob = join(SEA_DIR, 'route-optimizer.blob');
  const config = join(SEA_DIR, 'sea-config.json');
  writeFileSync(
    config,
    `${JSON.stringify({ main: seaMain, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, execArgv: [...SERVER_NODE_FLAGS], assets }, null, 2)}\n`,
  );
  const prep = spawnSync(process.execPath, ['--experimental-sea-config', config], { encoding: 'utf8' });
  if (prep.status !== 0)
    throw new Error(`node --experimental-sea-config failed: ${(prep.stderr || prep.stdout).trim()}`);

  const tmp = `${BINARY}.tmp`;
  copyFileSync(process.execPath, tmp);
  chmodSync(tmp, 0o755);
  const { inject } = require('postject');
  const printed = await injectCapturingOutput(inject, tmp, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: SEA_FUSE,
  });
  for (const line of explainInjectOutput(printed)) say(line);
  renameSync(tmp, BINARY);
  const sha = createHash('sha256').update(readFileSync(BINARY)).digest('hex');
  writeFileSync(`${BINARY}.sha256`, `${sha}  route-optimizer\n`);
  const mb = (statSync(BINARY).size / 1024 / 1024).toFixed(1);
  say(
    `${relative(process.cwd(), BINARY) || BINARY} (${mb} MiB, Node ${process.version}, ${Object.keys(assets).length} assets) built in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await withBuildLock(async () => {
      await buildDist();
      if (process.argv.includes('--binary')) await buildBinary();
    });
  } catch (err) {
    say(`failed: ${err.message}`);
    process.exit(1);
  }
}
