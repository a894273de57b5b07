/**
 * The public national address API host was shut down at the end of January 2026: the default chain
 * names its successor (the Géoplateforme), and the dead host is named nowhere the service or its
 * documentation could send a self-hoster to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_GEOPLATEFORME_BASE_URL } from '../../src/geo/index.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const DEAD_HOST = ['api-adresse', 'data', 'gouv', 'fr'].join('.'); // spelled in pieces so that this file does not match itself

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

test('the default configuration geocodes with the Géoplateforme first, the embedded gazetteer as fallback', () => {
  const geo = loadConfig({}).geocoding;
  assert.deepEqual(geo.chain, ['geoplateforme', 'embedded']);
  assert.equal(geo.geoplateformeUrl, 'https://data.geopf.fr/geocodage');
  assert.equal(DEFAULT_GEOPLATEFORME_BASE_URL, geo.geoplateformeUrl);
  assert.equal(geo.banUrl, null);
});

test('the dead public host appears nowhere in src/, data/ or README.md', () => {
  const scanned = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'data')), join(ROOT, 'README.md')];
  assert.ok(scanned.length > 50, `scanned ${scanned.length} files`);
  const hits = scanned.filter((f) => readFileSync(f).toString('latin1').includes(DEAD_HOST));
  assert.deepEqual(
    hits.map((f) => f.slice(ROOT.length)),
    [],
  );
});
