import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configVariables } from '../../src/config.js';
import { CONFIG_HELP } from '../../src/config-help.js';
import { CONFIG_TABLES, withFreshTable } from '../../scripts/docs-config.js';

test('every variable the config module reads is described, and nothing else is', () => {
  const read = configVariables().map((v) => v.name);
  assert.deepEqual(read.filter((name) => !CONFIG_HELP[name]), [], 'read but not described in src/config-help.ts');
  assert.deepEqual(Object.keys(CONFIG_HELP).filter((name) => !read.includes(name)), [], 'described but not read');
});

test('docs/configuration.md and the README carry the tables generated from the config module (npm run docs:config)', () => {
  for (const { file, only } of CONFIG_TABLES) {
    const doc = readFileSync(file, 'utf8');
    assert.equal(doc, withFreshTable(doc, only), `${file} is stale: run npm run docs:config`);
    assert.match(doc, /\| `PORT` \| `3000` \| HTTP port \|/);
    assert.match(doc, /\| `STRIPE_SECRET_KEY` \| unset \|/);
  }
  const readme = readFileSync(CONFIG_TABLES[1].file, 'utf8');
  assert.doesNotMatch(readme, /SANDBOX_CALLS_PER_MINUTE/, 'the README shows only the essential variables');
});
