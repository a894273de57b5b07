/**
 * Writes data/bench/manifest.json, the instance sets of bench:compare, from
 * their sources (data/tsplib, the planted-deadline generator, the gazetteer).
 *
 *   npx tsx scripts/build-bench-manifest.ts [--check]
 *
 * --check: exit 1 when the committed manifest differs from a fresh build.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

import { MANIFEST_PATH, ROOT, buildManifest, manifestText } from './lib/compare/manifest.js';

const check = process.argv.includes('--check');
const text = manifestText(buildManifest());
const where = relative(ROOT, MANIFEST_PATH);
if (check) {
  let old = '';
  try {
    old = readFileSync(MANIFEST_PATH, 'utf8');
  } catch {
    // missing: differs
  }
  if (old !== text) {
    console.error(`build-bench-manifest: ${where} is out of date; run npx tsx scripts/build-bench-manifest.ts`);
    process.exit(1);
  }
  console.error(`build-bench-manifest: ${where} is up to date`);
} else {
  mkdirSync(dirname(MANIFEST_PATH), { recursive: true });
  writeFileSync(MANIFEST_PATH, text);
  console.error(`build-bench-manifest: wrote ${where} (${text.length} bytes)`);
}
