#!/usr/bin/env node
// Runs a built entry of dist/ with plain node, in this very process (no child: the PID a process
// manager or `npm start` signals is the server's):
//   node scripts/dist.mjs main | admin … | bench-solver … | route-optimizer …
// Builds dist/ first when it is missing or older than its sources (esbuild, about a second; its
// messages go to stderr so that stdout stays the command's own). An install without the build tools
// (npm ci --omit=dev) runs the dist/ it has.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ENTRIES, staleReason, withBuildLock } from './lib/build-state.mjs';
import { majorOf, requiredMajor } from './lib/runtime.mjs';

const [entry, ...args] = process.argv.slice(2);
const fail = (line) => {
  process.stderr.write(`${line}\n`);
  process.exit(1);
};
if (!entry || !(entry in ENTRIES)) fail(`usage: node scripts/dist.mjs ${Object.keys(ENTRIES).join('|')} [args]`);
if (majorOf(process.version) < requiredMajor()) {
  fail(
    `route-optimization-service needs Node.js ${requiredMajor()} or later (this is ${process.version} at ${process.execPath}); npm ci installs it on linux-x64, elsewhere install Node.js ${requiredMajor()} LTS`,
  );
}

const file = join(DIST, `${entry}.js`);
let reason = staleReason();
if (reason !== null) {
  let build;
  try {
    build = await import('./build.mjs');
    await import('esbuild');
  } catch {
    build = null;
  }
  if (build === null) {
    if (!existsSync(file))
      fail(
        `${reason} and the build tools are not installed (npm ci --omit=dev): build it where they are (npm ci && npm run build), then copy dist/ or prune (npm prune --omit=dev)`,
      );
    process.stderr.write(`warning: ${reason}, and the build tools are not installed: running dist/ as it is\n`);
  } else {
    await withBuildLock(async () => {
      reason = staleReason(); // another process may have built it while we waited
      if (reason === null) return;
      process.stderr.write(`build: ${reason}; building dist/\n`);
      try {
        await build.buildDist();
      } catch (err) {
        fail(`build: failed: ${err.message}`);
      }
    });
  }
}

process.argv = [process.argv[0], file, ...args];
await import(pathToFileURL(file).href);
