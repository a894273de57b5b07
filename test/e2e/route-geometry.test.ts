/**
 * The console draws a route's line from the answer's `geometry` (a road line with OSRM) rather than straight
 * legs between its stops: Debian's Chromium driven by playwright-core, the sandbox routed by the OSRM fake,
 * whose roads turn once per leg. Without /usr/bin/chromium this test fails (it never skips).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import polylineCodec from '@googlemaps/polyline-codec';
import { chromium, type Browser } from 'playwright-core';
import { startFakeOsrm, type FakeOsrm } from '../fakes/osrm.js';
import { MissingPrerequisite } from '../helpers/prerequisites.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
let browser: Browser;
let osrm: FakeOsrm;
let server: TestServer;

before(async () => {
  if (!existsSync(CHROMIUM)) throw new MissingPrerequisite(`Chromium (${CHROMIUM}, for the browser tests)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  osrm = await startFakeOsrm();
  server = await startTestServer({ env: { SANDBOX_ROUTING: 'osrm', OSRM_URL: osrm.url } });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await osrm?.close();
});

test('the playground asks for the geometry and draws the road line it answers', async () => {
  const key = await server.createKey('test');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(`${server.url}/console`);
    await page.locator('#my-key-input').fill(key);
    await page.getByRole('button', { name: 'Check balance' }).click();
    await page.locator('#my-key-result').waitFor({ state: 'visible' });
    await page.getByRole('button', { name: /^Sample/ }).click();
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/optimize') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Optimize route' }).click();
    const response = await answer;
    assert.equal((response.request().postDataJSON() as { geometry?: boolean }).geometry, true);
    const route = (await response.json()) as { geometry: string; geometrySource: string; order: string[] };
    assert.equal(route.geometrySource, 'osrm');
    await page.locator('#playground-result').waitFor({ state: 'visible' });
    const line = page.locator('#route-map svg polyline.route-line');
    assert.equal(await line.getAttribute('data-geometry'), 'answer');
    const drawn = ((await line.getAttribute('points')) ?? '').trim().split(/\s+/);
    // the start, then a bend and a stop per leg: twice the legs and one, not one point per stop
    assert.equal(drawn.length, polylineCodec.decode(route.geometry, 5).length);
    assert.equal(drawn.length, 2 * route.order.length + 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
