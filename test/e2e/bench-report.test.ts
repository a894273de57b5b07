/**
 * The bench:compare report in a real browser (Debian's Chromium through
 * playwright-core) with the network cut: it must show its tables and charts
 * without fetching anything. Takes a screenshot (test-output/bench-report.png).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { chromium, type Browser } from 'playwright-core';

import { runCompare, twoBuilds } from '../bench/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT_DIR = join(import.meta.dirname, '..', '..', 'test-output');
let browser: Browser;

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser tests need Debian's Chromium (apt-get install -y chromium). CI installs it.`,
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

after(async () => {
  await browser?.close();
});

test('the report opens offline and shows its tables and charts', async () => {
  const run = runCompare([
    ...twoBuilds(),
    '--set',
    'tsplib',
    '--instances',
    'eil51,berlin52',
    '--seeds',
    '2',
    '--budgets',
    '5,20',
  ]);
  assert.equal(run.status, 0, run.stderr);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  const requested: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requested.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(join(run.dir, 'report.html')).href);

  assert.deepEqual(requested, [], 'the report fetched nothing');
  assert.deepEqual(errors, []);
  assert.match(await page.title(), /Solver comparison: B vs A/);
  assert.match(await page.locator('#verdicts').innerText(), /B is better than A at 5 ms on \d\/2 instances/);
  // the gap table: 2 budgets × 2 builds
  assert.equal(await page.locator('td[data-stat="mean"]').count(), 4);

  // charts: drawn SVG with marks, of a visible size
  const anytime = page.locator('figure[data-chart="anytime"] svg');
  assert.equal(await anytime.count(), 1);
  assert.ok((await anytime.locator('path').count()) > 2, 'anytime chart has lines');
  const box = await anytime.boundingBox();
  assert.ok(box && box.width > 300 && box.height > 200, `anytime chart is ${JSON.stringify(box)}`);
  assert.match((await anytime.textContent()) ?? '', /time \(ms, log scale\)/);
  const perInstance = page.locator('figure[data-chart="per-instance"] svg');
  assert.equal(await perInstance.count(), 2);
  for (let i = 0; i < 2; i++) {
    const text = (await perInstance.nth(i).textContent()) ?? '';
    assert.ok(text.includes('eil51') && text.includes('berlin52'), 'per-instance chart names the instances');
  }
  assert.match(await page.locator('#command').innerText(), /^npm run bench:compare -- --build A=/);

  mkdirSync(OUTPUT_DIR, { recursive: true });
  await page.screenshot({ path: join(OUTPUT_DIR, 'bench-report.png'), fullPage: true });
  await context.close();
});
