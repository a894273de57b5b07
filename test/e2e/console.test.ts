/**
 * The web console in a real browser: Debian's Chromium driven by playwright-core,
 * against the real app on port 0. CI installs /usr/bin/chromium; without it these
 * tests fail (they never skip).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { coordinateStops, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { MissingPrerequisite } from '../helpers/prerequisites.js';
import { startFakeStripe } from '../fakes/stripe.js';
import Stripe from 'stripe';
import { startFakeGeoplateforme } from '../fakes/geoplateforme.js';
import { PARIS_ADDRESSES } from '../fakes/paris-addresses.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT_DIR = join(import.meta.dirname, '..', '..', 'test-output');

let browser: Browser;
let server: TestServer;

interface Watched {
  page: Page;
  /** console.error messages and uncaught page errors, except the HTTP statuses a test expects. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * A fresh page that records every console error and page error. Chromium logs a
 * "Failed to load resource" console error for each 4xx answer; a test lists the
 * (status, path) pairs it provokes on purpose, anything else counts.
 */
async function watchedPage(expected: Array<{ status: number; path: string }> = []): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    const url = message.location().url ?? '';
    const allowed = expected.some(
      ({ status, path }) => text.includes(`status of ${status}`) && new URL(url, server.url).pathname === path,
    );
    if (!allowed) errors.push(`console.error: ${text} (${url})`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  return { page, errors, close: () => context.close() };
}

async function packsMounted(): Promise<boolean> {
  return (await server.request('GET', '/api/v1/packs')).status === 200;
}

before(async () => {
  if (!existsSync(CHROMIUM)) throw new MissingPrerequisite(`Chromium (${CHROMIUM}, for the browser tests)`);
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
  server = await startTestServer();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('web console in Chromium', () => {
  test('creates a test key, shows it once with a curl example, and shows its sandbox quotas', async () => {
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      await page.goto(`${server.url}/console`);
      await page.keyboard.press('Tab');
      assert.equal(
        await page.evaluate(() => document.activeElement?.className),
        'skip-link',
        'the first Tab reaches the skip link',
      );

      await page.getByLabel('E-mail address', { exact: true }).fill('someone@example.com');
      await page.getByRole('button', { name: 'Create test key' }).click();
      const keyField = page.locator('#test-key-value');
      await keyField.waitFor({ state: 'visible' });
      const key = await keyField.inputValue();
      assert.match(key, /^svc_test_[A-Za-z0-9_-]{43}$/);
      assert.ok((await page.locator('#test-key-curl').textContent())!.includes(`Authorization: Bearer ${key}`));

      // the new key is the page's key: its quotas are shown at once
      const quotas = page.locator('#my-key-result');
      await quotas.waitFor({ state: 'visible' });
      const text = (await quotas.textContent())!;
      assert.match(text, /Test key · sandbox/);
      assert.match(text, /Stops left today\s*200/);
      assert.match(text, /Calls left this minute\s*20/);
      assert.match(text, /resets at midnight Paris time/);
      assert.equal(await page.locator('#my-key-input').inputValue(), key);

      // kept in page memory only
      const stored = await page.evaluate(
        () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
      );
      assert.ok(!stored.includes(key), 'the key is not stored in the browser');

      // and it is a working key
      const balance = await server.request('GET', '/api/v1/balance', { key });
      assert.deepEqual(balance.body, {
        sandbox: true,
        sandboxStopsRemainingToday: 200,
        sandboxCallsRemainingThisMinute: 20,
      });

      // payments are off on this server (no STRIPE_SECRET_KEY): no pack form, a note saying how to turn them on
      const off = page.locator('#payments-off');
      await off.waitFor({ state: 'visible' });
      assert.match(
        (await off.textContent())!,
        /payments are not configured[\s\S]*STRIPE_SECRET_KEY[\s\S]*keys create --kind live --stops/,
      );
      assert.ok(await page.locator('#buy-form').isHidden());
      assert.equal(await page.locator('#packs input[name="packId"]').count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the playground sample draws one numbered marker per stop in the returned order, with a schedule row per stop', async () => {
    const key = await server.createKey('test');
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      await page.goto(`${server.url}/console`);
      await page.locator('#my-key-input').fill(key);
      await page.getByRole('button', { name: 'Check balance' }).click();
      await page.locator('#my-key-result').waitFor({ state: 'visible' });

      await page.getByRole('button', { name: /^Sample/ }).click();
      assert.equal(await page.locator('#stops-body tr').count(), 10);
      // deadlines are 24-hour text (HH:MM), not <input type="time">, which shows 08:00 AM in some locales
      for (const input of await page
        .locator('#stops-body input[aria-label$="deadline (Paris time, optional)"]')
        .all()) {
        assert.equal(await input.getAttribute('type'), 'text');
        assert.equal(await input.getAttribute('placeholder'), 'HH:MM');
        assert.match(await input.inputValue(), /^(\d{2}:\d{2})?$/);
      }
      assert.match(await page.locator('#departure').inputValue(), /^\d{4}-\d{2}-\d{2}T08:00$/);

      const responsePromise = page.waitForResponse(
        (r) => r.url().endsWith('/api/v1/optimize') && r.request().method() === 'POST',
      );
      await page.getByRole('button', { name: 'Optimize route' }).click();
      const response = await responsePromise;
      assert.equal(response.status(), 200);
      const route = (await response.json()) as {
        order: string[];
        lateStops: Array<{ colisId: string }> | null;
        schedule: unknown[];
        sandbox: boolean;
      };
      assert.equal(route.order.length, 10);
      assert.equal(route.sandbox, true);

      await page.locator('#playground-result').waitFor({ state: 'visible' });
      const markers = await page.locator('#route-map svg .stop-marker').evaluateAll((nodes) =>
        nodes.map((node) => ({
          id: node.getAttribute('data-stop-id'),
          order: Number(node.getAttribute('data-order')),
          label: node.querySelector('text')?.textContent,
          late: node.classList.contains('late'),
        })),
      );
      assert.equal(markers.length, 10, 'one marker per stop');
      assert.deepEqual(
        markers.map((m) => m.id),
        route.order,
        'markers follow the visiting order',
      );
      assert.deepEqual(
        markers.map((m) => m.label),
        route.order.map((_, i) => String(i + 1)),
        'numbered 1..n',
      );
      assert.deepEqual(
        markers.map((m) => m.order),
        route.order.map((_, i) => i + 1),
      );
      const lateIds = new Set((route.lateStops ?? []).map((l) => l.colisId));
      assert.deepEqual(
        markers
          .filter((m) => m.late)
          .map((m) => m.id)
          .sort(),
        [...lateIds].sort(),
        'late stops coloured',
      );
      assert.equal(await page.locator('#route-map svg .start-marker').count(), 1);
      assert.equal(await page.locator('#route-map svg .end-marker').count(), 0, 'no end point was sent');
      assert.equal(await page.locator('#route-map svg polyline.route-line').count(), 1);

      const rows = await page
        .locator('#schedule-table tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => c.textContent)));
      assert.equal(rows.length, 10, 'a schedule row per stop');
      assert.deepEqual(
        rows.map((r) => r[1]),
        route.order,
      );
      for (const row of rows) assert.match(row[2]!, /^\d{2}:\d{2}/, 'arrivals in HH:MM Paris time');
      // arrivals are rounded up to the minute as lateness is: a late stop's shown arrival minus its deadline is
      // its retardMin, a stop on time is shown at or before its deadline (08:15:40 read "08:15", late by 1 min)
      const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
      const lateness = new Map(
        (route.lateStops ?? []).map((l) => [l.colisId, (l as { retardMin?: number }).retardMin]),
      );
      for (const row of rows) {
        const [, id, arrival, deadline, , status] = row as string[];
        if (deadline === '—') continue;
        if (lateness.has(id)) {
          assert.equal(
            minutes(arrival) - minutes(deadline),
            lateness.get(id),
            `${id}: shown ${arrival}, deadline ${deadline}, ${status}`,
          );
          assert.equal(status, `Late by ${lateness.get(id)} min`);
        } else {
          assert.ok(minutes(arrival) <= minutes(deadline), `${id}: on time, shown ${arrival}, deadline ${deadline}`);
        }
      }
      // coordinates only: no "Located" column, and the schedule fits beside the map at 1280 px
      const fits = await page
        .locator('#schedule-table')
        .evaluate((table) => ({ table: table.scrollWidth, box: table.parentElement!.clientWidth }));
      assert.ok(fits.table <= fits.box, `schedule ${fits.table} px wide in ${fits.box} px`);
      assert.equal(await page.locator('#schedule-table th', { hasText: 'Located' }).isVisible(), false);

      const totals = (await page.locator('#totals').textContent())!;
      assert.match(totals, /Distance\s*\d+\.\d{2} km/);
      assert.match(totals, /Charged\s*0 stops/);
      assert.match(totals, /Left today\s*190 stops/);

      // with an end point the route is closed and the end marked
      await page.getByRole('button', { name: 'Same as start' }).click();
      const second = page.waitForResponse((r) => r.url().endsWith('/api/v1/optimize'));
      await page.getByRole('button', { name: 'Optimize route' }).click();
      const closed = (await (await second).json()) as { returnAt: string | null; order: string[] };
      assert.ok(closed.returnAt);
      await page.locator('#route-map svg .end-marker').waitFor();
      assert.match((await page.locator('#totals').textContent())!, /Return\s*\d{2}:\d{2}/);

      mkdirSync(OUTPUT_DIR, { recursive: true });
      await page.locator('#playground').screenshot({ path: join(OUTPUT_DIR, 'playground.png') });
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('stops pasted as CSV and JSON are sent as typed', async () => {
    const key = await server.createKey('test');
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      await page.goto(`${server.url}/console`);
      await page.locator('#my-key-input').fill(key);
      await page.locator('#my-key-input').press('Enter');
      await page.locator('#my-key-result').waitFor({ state: 'visible' });

      await page.locator('label[for="mode-csv"]').click();
      await page
        .locator('#stops-text')
        .fill(
          'id,latitude,longitude,deadline,serviceSeconds\na,48.8606,2.3376,10:30,\nb,48.8530,2.3499,,120\n"c, the third",48.8738,2.2950',
        );
      const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/optimize'));
      await page.getByRole('button', { name: 'Optimize route' }).click();
      const sent = (await request).postDataJSON() as { stops: unknown[] };
      assert.deepEqual(sent.stops, [
        { id: 'a', latitude: 48.8606, longitude: 2.3376, deadline: '10:30' },
        { id: 'b', latitude: 48.853, longitude: 2.3499, serviceSeconds: 120 },
        { id: 'c, the third', latitude: 48.8738, longitude: 2.295 },
      ]);
      await page.locator('#playground-result').waitFor({ state: 'visible' });

      // switching to JSON carries the stops over; switching to the table too
      await page.locator('label[for="mode-json"]').click();
      assert.deepEqual(JSON.parse(await page.locator('#stops-text').inputValue()), sent.stops);
      await page.locator('label[for="mode-table"]').click();
      assert.equal(await page.locator('#stops-body tr').count(), 3);

      // a bad CSV line is reported before anything is sent
      await page.locator('label[for="mode-csv"]').click();
      await page.locator('#stops-text').fill('a,48.86,not-a-number');
      await page.getByRole('button', { name: 'Optimize route' }).click();
      const error = page.locator('#playground-error');
      await error.waitFor({ state: 'visible' });
      assert.match((await error.textContent())!, /CSV line 1: longitude must be a number/);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('address stops (JSON, live key): each schedule row shows where the address was placed, and the geocoding warnings are listed', async () => {
    const fake = await startFakeGeoplateforme([
      ...PARIS_ADDRESSES,
      {
        street: 'Allée Introuvable',
        postcode: '75004',
        city: 'Paris',
        citycode: '75104',
        latitude: 48.8546,
        longitude: 2.3575,
        type: 'municipality',
      },
    ]);
    const geo = await startTestServer({ env: { GEOPLATEFORME_URL: fake.url } });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(m.text());
    });
    try {
      const key = await geo.createKey('live', 50);
      await page.goto(`${geo.url}/console`);
      await page.locator('#my-key-input').fill(key);
      await page.locator('#my-key-input').press('Enter');
      await page.locator('#my-key-result').waitFor({ state: 'visible' });
      await page.locator('label[for="mode-json"]').click();
      const stops = [
        { id: 'rivoli', street: '1 Rue de Rivoli', postalCode: '75004', city: 'Paris' },
        { id: 'vosges', street: '6 place des Vosges', postalCode: '75004', city: 'Paris', serviceSeconds: 120 },
        { id: 'nowhere', street: 'Allée Introuvable', postalCode: '75004', city: 'Paris' },
        { id: 'coords', latitude: 48.86, longitude: 2.35 },
      ];
      await page.locator('#stops-text').fill(JSON.stringify(stops));
      const responsePromise = page.waitForResponse((r) => r.url().endsWith('/api/v1/optimize'));
      await page.getByRole('button', { name: 'Optimize route' }).click();
      const response = await responsePromise;
      assert.equal(response.status(), 200);
      assert.deepEqual(
        (response.request().postDataJSON() as { stops: unknown[] }).stops,
        stops,
        'addresses are sent as typed',
      );
      await page.locator('#playground-result').waitFor({ state: 'visible' });

      const rows = await page
        .locator('#schedule-table tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [tr.children[1]!.textContent, tr.lastElementChild!.textContent]));
      const located = new Map(rows.map(([id, text]) => [id, text]));
      assert.equal(located.get('rivoli'), 'House number1 Rue de Rivoli 75004 Paris (geoplateforme)');
      assert.equal(located.get('vosges'), 'House number6 Place des Vosges 75004 Paris (geoplateforme)');
      assert.equal(located.get('nowhere'), 'Commune onlyParis (geoplateforme)');
      assert.equal(located.get('coords'), 'As sent');
      const warnings = page.locator('#route-warnings');
      assert.equal(await warnings.isVisible(), true);
      const items = await warnings.locator('li').allTextContents();
      assert.equal(items.length, 1);
      assert.match(
        items[0]!,
        /^Stop "nowhere" was placed at its commune \("Paris", geoplateforme\), not at its street/,
      );

      // the table cannot hold addresses: switching to it says so and keeps the JSON
      await page.locator('label[for="mode-table"]').click();
      const error = page.locator('#playground-error');
      await error.waitFor({ state: 'visible' });
      assert.match(
        (await error.textContent())!,
        /stop "rivoli" is an address: the table takes coordinates, keep addresses in JSON/,
      );
      assert.equal(await page.locator('#mode-json').isChecked(), true);
      mkdirSync(OUTPUT_DIR, { recursive: true });
      await page.locator('#playground').screenshot({ path: join(OUTPUT_DIR, 'playground-addresses.png') });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await geo.close();
      await fake.close();
    }
  });

  test('an invalid key shows the 401 message, in My key and in the playground', async () => {
    const bogus = `svc_test_${'x'.repeat(43)}`;
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage([
      { status: 401, path: '/api/v1/balance' },
      { status: 401, path: '/api/v1/optimize' },
      ...packsExpected,
    ]);
    try {
      await page.goto(`${server.url}/console`);
      await page.locator('#my-key-input').fill(bogus);
      await page.getByRole('button', { name: 'Check balance' }).click();
      const alert = page.locator('#my-key-error');
      await alert.waitFor({ state: 'visible' });
      assert.equal(await alert.getAttribute('role'), 'alert');
      assert.match((await alert.textContent())!, /401 unauthorized: Invalid API key\./);
      assert.ok(await page.locator('#my-key-result').isHidden());

      await page.getByRole('button', { name: /^Sample/ }).click();
      await page.getByRole('button', { name: 'Optimize route' }).click();
      const playgroundAlert = page.locator('#playground-error');
      await playgroundAlert.waitFor({ state: 'visible' });
      assert.match((await playgroundAlert.textContent())!, /401 unauthorized: Invalid API key\./);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the abuse limit on test keys shows its message', async () => {
    const limited = await startTestServer({ env: { CONSOLE_TEST_KEYS_PER_IP_PER_DAY: '1' } });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (
        m.type() === 'error' &&
        !(/status of 429/.test(m.text()) && m.location().url?.endsWith('/console/api/test-keys')) &&
        !(/status of 404/.test(m.text()) && m.location().url?.endsWith('/api/v1/packs'))
      )
        errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${limited.url}/console`);
      const email = page.getByLabel('E-mail address', { exact: true });
      await email.fill('first@example.com');
      await page.getByRole('button', { name: 'Create test key' }).click();
      await page.locator('#test-key-value').waitFor({ state: 'visible' });

      await email.fill('second@example.com');
      await page.getByRole('button', { name: 'Create test key' }).click();
      const alert = page.locator('#test-key-error');
      await alert.waitFor({ state: 'visible' });
      assert.equal(await alert.getAttribute('role'), 'alert');
      const text = (await alert.textContent())!;
      assert.match(text, /429 rate_limited: Too many test keys requested from this network address \(1 per 24 hours\)/);
      assert.match(text, /retry in 24 h 00 min|retry in 23 h/);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await limited.close();
    }
  });

  test('an invalid e-mail is refused before any request', async () => {
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      await page.goto(`${server.url}/console`);
      let posted = false;
      page.on('request', (r) => {
        if (r.url().endsWith('/console/api/test-keys')) posted = true;
      });
      await page.getByLabel('E-mail address', { exact: true }).fill('not-an-address');
      await page.getByRole('button', { name: 'Create test key' }).click();
      await page.locator('#test-key-error').waitFor({ state: 'visible' });
      assert.equal(await page.getByLabel('E-mail address', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.equal(posted, false);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the API reference renders the OpenAPI document with the local Swagger UI', async () => {
    const { page, errors, close } = await watchedPage();
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    try {
      const documentResponse = page.waitForResponse((r) => r.url().endsWith('/api/v1/openapi.json'));
      await page.goto(`${server.url}/docs`);
      assert.equal((await documentResponse).status(), 200);
      await page.locator('.opblock').first().waitFor();
      const paths = await page.locator('.opblock-summary-path').allTextContents();
      for (const path of ['/api/v1/optimize', '/api/v1/balance', '/api/v1/checkout']) {
        assert.ok(
          paths.some((p) => p.replace(/\u200b/g, '').includes(path)),
          `${path} is rendered (got ${paths.join(', ')})`,
        );
      }
      assert.match((await page.locator('.info .title').textContent())!, /Route Optimization Service/);
      // operations are grouped under described tags, none under an untitled "default"
      const tags = (await page.locator('.opblock-tag').allTextContents()).map((t) => t.replace(/\u200b/g, ''));
      for (const tag of ['Optimization', 'Account', 'Payments'])
        assert.ok(
          tags.some((t) => t.startsWith(tag) && t.length > tag.length + 10),
          `tag ${tag} with its description (got ${tags.join(' | ')})`,
        );
      assert.ok(!tags.some((t) => /^default/.test(t)), tags.join(' | '));
      // "Webhooks" once: Swagger UI's own heading of the webhooks, no empty tag group of the same name
      const webhooks = await page.getByText('Webhooks', { exact: true }).count();
      assert.equal(webhooks, 1, `"Webhooks" shown ${webhooks} times`);
      // collapsed schemas say what their branches are, not (any | any)
      const models = await page.locator('.models').innerText();
      // (coordinates, a matrix index, an address)
      assert.match(models, /Location[\s\S]{0,40}\(object \| object \| object\)/, models.slice(0, 400));
      assert.ok(!/\(any \| any\)/.test(models), `a schema labelled (any | any): ${models}`);
      assert.deepEqual(outside, [], 'no request leaves the server');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('on a phone-sized screen nothing overflows the page width, results included', async () => {
    const key = await server.createKey('test');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/console`);
      await page.locator('#my-key-input').fill(key);
      await page.getByRole('button', { name: /^Sample/ }).click();
      const done = page.waitForResponse((r) => r.url().endsWith('/api/v1/optimize'));
      await page.getByRole('button', { name: 'Optimize route' }).click();
      assert.equal((await done).status(), 200);
      await page.locator('#playground-result').waitFor({ state: 'visible' });
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);

      await page.getByRole('button', { name: /^Fleet sample/ }).click();
      const planned = page.waitForResponse((r) => r.url().endsWith('/api/v1/plans'));
      await page.getByRole('button', { name: 'Plan the day' }).click();
      assert.equal((await planned).status(), 200);
      await page.locator('#plans-result').waitFor({ state: 'visible' });
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    } finally {
      await context.close();
    }
  });

  test('the checkout success page says what it knows: no session, an unknown one; the cancel page links back', async () => {
    const { page, errors, close } = await watchedPage();
    try {
      await page.goto(`${server.url}/console/checkout/success`);
      await page.locator('h1', { hasText: 'No payment to show' }).waitFor();
      assert.doesNotMatch((await page.locator('main').textContent())!, /thank/i);
      await page.goto(`${server.url}/console/checkout/success?session_id=cs_test_123`);
      await page.locator('h1', { hasText: 'Unknown payment session' }).waitFor();
      assert.match(
        (await page.locator('#checkout-status').textContent())!,
        /knows no checkout session with the id in this address/,
      );
      await page.goto(`${server.url}/console/checkout/cancel`);
      assert.match((await page.locator('h1').textContent())!, /Payment cancelled/);
      await page.getByRole('link', { name: 'Choose a pack' }).click();
      await page.waitForURL(/\/console#buy$/);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('with payments on: the packs are offered, and after payment the success page names the key and where it went', async () => {
    const stripe = await startFakeStripe();
    const dir = tempDir('ros-e2e-paid-');
    const paid = await startTestServer({
      dir,
      env: {
        STRIPE_SECRET_KEY: 'sk_test_e2e',
        STRIPE_API_BASE: stripe.url,
        STRIPE_WEBHOOK_SECRET: 'whsec_e2e',
        OUTBOX_DIR: join(dir, 'outbox'),
      },
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(`${paid.url}/console`);
      await page.locator('#packs .pack').first().waitFor();
      assert.equal(await page.locator('#packs input[name="packId"]').count(), 4);
      assert.ok(await page.locator('#payments-off').isHidden());

      const checkout = await paid.request('POST', '/api/v1/checkout', {
        body: { email: 'dispatch@example.com', packId: 'pack_2k' },
      });
      const sessionId = /cs_test_\w+/.exec(checkout.body.url)![0];
      await page.goto(`${paid.url}/console/checkout/success?session_id=${sessionId}`);
      await page.locator('h1', { hasText: 'Payment not finished' }).waitFor();

      stripe.sessions.get(sessionId)!.status = 'complete';
      stripe.sessions.get(sessionId)!.payment_status = 'paid';
      await page.reload();
      await page.locator('h1', { hasText: 'Payment received' }).waitFor();
      assert.match(
        (await page.locator('#checkout-status').textContent())!,
        /live key is being prepared and will be e-mailed to d…h@example\.com/,
      );

      const payload = JSON.stringify(stripe.event('checkout.session.completed', sessionId, { payment_status: 'paid' }));
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_e2e' });
      assert.equal(
        (
          await paid.request('POST', '/api/v1/webhooks/stripe', {
            rawBody: payload,
            headers: { 'Stripe-Signature': signature },
          })
        ).status,
        200,
      );
      await page.reload();
      await page.locator('h1', { hasText: 'Payment received' }).waitFor();
      const text = (await page.locator('#checkout-status').textContent())!;
      const last4 = (await paid.services.store.listKeys()).find((k) => k.kind === 'live')!.last4;
      assert.match(text, new RegExp(`2,000 stops are on a new live key ending in …${last4.replace(/[-]/g, '\\-')}`));
      assert.match(text, /e-mailed to d…h@example\.com/);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await paid.close();
      await stripe.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fleet playground in Chromium', () => {
  interface Plan {
    routes: Array<{
      vehicleId: string;
      order: string[];
      load: number[];
      schedule: Array<{ colisId: string; arrivee: string; serviceStart?: string }>;
      steps: Array<{ type: string; id: string; load: number[] }>;
    }>;
    unassigned: Array<{ id: string; reason: string }>;
    totals: { stops: number; assigned: number; vehiclesUsed: number };
    sandbox?: boolean;
  }

  async function openWithKey(page: Page): Promise<void> {
    const key = await server.createKey('test');
    await page.goto(`${server.url}/console`);
    await page.locator('#my-key-input').fill(key);
    await page.locator('#my-key-input').press('Enter');
    await page.locator('#my-key-result').waitFor({ state: 'visible' });
  }

  async function planDay(page: Page): Promise<{ status: number; plan: Plan }> {
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/plans') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Plan the day' }).click();
    const response = await answer;
    return { status: response.status(), plan: (await response.json()) as Plan };
  }

  test('the sample needs both vans: a coloured route and a schedule per vehicle, every stop once, opening times kept, shipments drawn ▲ to ▼', async () => {
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      await openWithKey(page);
      await page.getByRole('button', { name: /^Fleet sample/ }).click();
      assert.equal(await page.locator('#vehicles-body tr').count(), 2);
      assert.match(await page.locator('#plans-departure').inputValue(), /^\d{4}-\d{2}-\d{2}T08:00$/);
      for (const field of ['shiftStart', 'shiftEnd']) {
        const input = page.locator(`#vehicles-body input[data-field="${field}"]`).first();
        assert.equal(
          await input.getAttribute('type'),
          'text',
          `${field}: 24-hour text, not a locale-dependent time input`,
        );
        assert.match(await input.inputValue(), /^\d{2}:\d{2}$/);
      }
      const sent = JSON.parse(await page.locator('#plans-stops').inputValue()) as Array<{
        id: string;
        demand: number[];
      }>;
      assert.equal(sent.length, 6);
      const shipments = JSON.parse(await page.locator('#plans-shipments').inputValue()) as Array<{ id: string }>;
      assert.deepEqual(
        shipments.map((s) => s.id),
        ['return-1', 'parcel-2'],
      );

      const { status, plan } = await planDay(page);
      assert.equal(status, 200);
      assert.equal(plan.sandbox, true);
      assert.equal(plan.routes.length, 2, '16 parcels leave the depot: they do not fit one van of 12');
      assert.deepEqual(plan.unassigned, []);
      for (const route of plan.routes)
        for (const step of route.steps) assert.ok(step.load[0]! <= 12, `${route.vehicleId} carries ${step.load[0]}`);

      await page.locator('#plans-result').waitFor({ state: 'visible' });
      const markers = await page.locator('#plans-map svg .stop-marker').evaluateAll((nodes) =>
        nodes.map((node) => ({
          id: node.getAttribute('data-stop-id'),
          vehicle: node.getAttribute('data-vehicle-id'),
          label: node.querySelector('text')?.textContent,
        })),
      );
      const expected = plan.routes.flatMap((r) =>
        r.order.map((id, i) => ({ id, vehicle: r.vehicleId, label: String(i + 1) })),
      );
      assert.deepEqual(markers, expected, 'one marker per stop, in its vehicle and numbered in visiting order');
      assert.deepEqual(
        [...new Set(markers.map((m) => m.id))].sort(),
        [...sent, ...shipments].map((s) => s.id).sort(),
        'every stop and shipment drawn',
      );
      // a shipment: a ▲ at its pickup and a ▼ at its delivery, on one vehicle, joined by a dashed line
      for (const { id } of shipments) {
        const route = plan.routes.find((r) => r.order.includes(id))!;
        const ends = await page
          .locator(`#plans-map svg .stop-marker[data-stop-id="${id}"]`)
          .evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('class'), n.getAttribute('data-vehicle-id')]));
        assert.deepEqual(ends, [
          ['stop-marker pickup', route.vehicleId],
          ['stop-marker delivery', route.vehicleId],
        ]);
        const link = page.locator(`#plans-map svg line.shipment-link[data-shipment-id="${id}"]`);
        assert.equal(await link.count(), 1);
        assert.equal(await link.getAttribute('stroke-dasharray'), '6 4');
      }
      assert.equal(await page.locator('#plans-map svg .stop-marker.pickup path.shipment-shape').count(), 2);
      assert.equal(await page.locator('#plans-map svg .shipment-link').count(), 2);
      assert.equal(await page.locator('#plans-map svg polyline.route-line').count(), 2);
      const colours = await page
        .locator('#plans-map svg polyline.route-line')
        .evaluateAll((lines) => lines.map((l) => l.getAttribute('stroke')));
      assert.equal(new Set(colours).size, 2, 'each vehicle in its own colour');
      assert.equal(await page.locator('#plans-map svg .start-marker').count(), 1, 'one depot, one start marker');

      const schedules = await page.locator('#plans-schedules .plan-route').evaluateAll((sections) =>
        sections.map((s) => ({
          vehicle: s.getAttribute('data-vehicle-id'),
          rows: Array.from(s.querySelectorAll('tbody tr')).map((tr) =>
            Array.from(tr.children).map((c) => c.textContent),
          ),
        })),
      );
      assert.deepEqual(
        schedules.map((s) => s.vehicle),
        plan.routes.map((r) => r.vehicleId),
      );
      for (const [i, s] of schedules.entries()) {
        assert.deepEqual(
          s.rows.map((r) => r[1]),
          plan.routes[i]!.order,
        );
        assert.deepEqual(
          s.rows.map((r) => r[2]),
          plan.routes[i]!.steps.slice(1, -1).map(
            (step) => ({ stop: 'Stop', pickup: 'Pickup', delivery: 'Delivery' })[step.type],
          ),
          'a row per step with its type',
        );
        for (const row of s.rows) assert.match(row[3]!, /^\d{2}:\d{2}/, 'arrivals in HH:MM Paris time');
      }
      for (const { id } of shipments) {
        const on = schedules.filter((s) => s.rows.some((r) => r[1] === id));
        assert.equal(on.length, 1, `${id}: both ends on one vehicle`);
        assert.deepEqual(
          on[0]!.rows.filter((r) => r[1] === id).map((r) => r[2]),
          ['Pickup', 'Delivery'],
        );
      }
      const rows = schedules.flatMap((s) => s.rows);
      const a03 = rows.find((r) => r[1] === 'A03')!;
      const startOf = (row: Array<string | null>) => (row[4] === 'On arrival' ? row[3]! : row[4]!);
      assert.ok(startOf(a03) >= '09:30', `A03 opens at 09:30; its service starts ${startOf(a03)}`);
      assert.equal(a03[7], '09:30–…');
      const returned = rows.find((r) => r[1] === 'return-1' && r[2] === 'Delivery')!;
      assert.equal(returned[7], '09:00–11:00');
      assert.ok(startOf(returned) >= '09:00', `return-1 is delivered from 09:00; at ${startOf(returned)}`);

      const totals = (await page.locator('#plans-totals').textContent())!;
      assert.match(totals, /Vehicles used\s*2 of 2/);
      assert.match(totals, /Stops assigned\s*10 of 10/);
      assert.match(totals, /Charged\s*0 stops/);
      assert.match(totals, /Left today\s*190 stops/);
      assert.ok(await page.locator('#plans-unassigned').isHidden());

      mkdirSync(OUTPUT_DIR, { recursive: true });
      await page.locator('#plans').screenshot({ path: join(OUTPUT_DIR, 'fleet-playground.png') });

      // a shipment no van has room for: listed once, both its ends drawn hollow with ▲ and ▼
      const heavy = JSON.parse(await page.locator('#plans-shipments').inputValue()) as Array<{ demand: number[] }>;
      heavy[0]!.demand = [40];
      await page.locator('#plans-shipments').fill(JSON.stringify(heavy));
      const second = await planDay(page);
      assert.deepEqual(
        second.plan.unassigned.map((u) => [u.id, u.reason]),
        [['return-1', 'capacity']],
      );
      await page.locator('#plans-unassigned li[data-stop-id="return-1"]').waitFor({ state: 'visible' });
      assert.deepEqual(
        await page.locator('#plans-map svg .unassigned-marker[data-stop-id="return-1"] text').allTextContents(),
        ['▲', '▼'],
      );
      assert.equal(await page.locator('#plans-map svg .stop-marker[data-stop-id="return-1"]').count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test("a vehicle's route limits and break are sent from its row, and a break step of the answer is a row of its schedule with a pause sign, no place on the map", async () => {
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      await openWithKey(page);
      await page.getByRole('button', { name: /^Fleet sample/ }).click();
      await page.getByLabel(/^Vehicle 1 break/).fill('12:00-14:00 30');
      await page.getByLabel('Vehicle 1 longest route in minutes (optional)').fill('600');
      await page.getByLabel('Vehicle 1 most driving in minutes (optional)').fill('480');
      await page.getByLabel('Vehicle 1 longest route in km (optional)').fill('150.5');
      let sentBreaks: unknown;
      let sentLimits: unknown;
      // the break is checked as sent, then taken off the forwarded body and a break step added to the real
      // answer as the API writes one (type "break", the vehicle's break id, no place): this test does not
      // depend on the solver's breaks, only on the shape of their steps
      await page.route('**/api/v1/plans', async (route) => {
        const body = route.request().postDataJSON() as { vehicles: Array<{ breaks?: unknown }> };
        sentBreaks = body.vehicles[0]!.breaks;
        const { maxDurationMin, maxDrivingMin, maxDistanceKm } = body.vehicles[0] as Record<string, unknown>;
        sentLimits = { maxDurationMin, maxDrivingMin, maxDistanceKm };
        delete body.vehicles[0]!.breaks;
        const response = await route.fetch({ postData: JSON.stringify(body) });
        const answer = (await response.json()) as Plan;
        const steps = answer.routes.find((r) => r.vehicleId === 'van-1')!.steps as Array<Record<string, unknown>>;
        const after = steps[1]!;
        const end = new Date(Date.parse(after.departure as string) + 30 * 60_000).toISOString().replace('.000Z', 'Z');
        steps.splice(2, 0, { ...after, type: 'break', id: 'van-1-break', arrival: after.departure, departure: end });
        delete steps[2]!.serviceStart;
        await route.fulfill({ response, json: answer });
      });
      const { plan } = await planDay(page);
      assert.deepEqual(sentLimits, { maxDurationMin: 600, maxDrivingMin: 480, maxDistanceKm: 150.5 });
      assert.deepEqual(sentBreaks, [
        { id: 'van-1-break', window: { start: '12:00', end: '14:00' }, durationSeconds: 1800 },
      ]);
      await page.locator('#plans-result').waitFor({ state: 'visible' });
      const van1 = plan.routes.find((r) => r.vehicleId === 'van-1')!;
      const rows = page.locator('#plans-schedules .plan-route[data-vehicle-id="van-1"] tbody tr');
      assert.equal(await rows.count(), van1.order.length + 1);
      const lunch = rows.nth(1);
      assert.equal(await lunch.getAttribute('data-type'), 'break');
      const cells = await lunch.locator('th, td').allTextContents();
      assert.deepEqual(
        [cells[1], cells[2], cells[7], cells[8]],
        ['van-1-break', 'Break', '12:00–14:00', '30 min break'],
      );
      assert.equal(await lunch.getByRole('img', { name: 'Break' }).count(), 1);
      assert.equal(await rows.nth(2).locator('td').first().textContent(), '2', 'the visit after it keeps its number');
      const markers = await page.locator('#plans-map svg .stop-marker').count();
      assert.equal(
        markers,
        plan.routes.reduce((n, r) => n + r.order.length, 0),
      );

      // a break the row cannot read is reported before anything is sent
      await page.getByLabel(/^Vehicle 1 break/).fill('noon');
      await page.getByRole('button', { name: 'Plan the day' }).click();
      await page.waitForFunction(() =>
        /Vehicle 1: break must be a window and minutes/.test(document.getElementById('plans-error')?.textContent ?? ''),
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  const BIG_PLAN_STOPS = 800;
  test('a big plan runs in the background: a progress bar with the best plan so far, a stop button that keeps it, then the plan drawn', async () => {
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage(packsExpected);
    try {
      const key = await server.createKey('live', 1000);
      await page.goto(`${server.url}/console`);
      await page.locator('#my-key-input').fill(key);
      await page.locator('#my-key-input').press('Enter');
      await page.locator('#my-key-result').waitFor({ state: 'visible' });
      await page.getByRole('button', { name: /^Fleet sample/ }).click();
      for (const field of ['capacity', 'shiftEnd'])
        for (const input of await page.locator(`#vehicles-body input[data-field="${field}"]`).all())
          await input.fill('');
      // more than 200 stops: in the background without asking; enough that the search (which stops once it
      // stalls) is still running when the stop button is pressed on a quiet machine (250 stops were done in 2 s)
      await page.locator('#plans-stops').fill(JSON.stringify(coordinateStops(BIG_PLAN_STOPS)));
      await page.locator('#plans-shipments').fill('');
      await page.locator('#plans-time-limit').fill('120');
      const accepted = page.waitForResponse(
        (r) => r.url().endsWith('/api/v1/plans') && r.request().method() === 'POST',
      );
      await page.getByRole('button', { name: 'Plan the day' }).click();
      const answer = await accepted;
      assert.equal(answer.status(), 202);
      assert.equal(answer.request().headers()['prefer'], 'respond-async');
      assert.equal(((await answer.json()) as { stopsCharged: number }).stopsCharged, BIG_PLAN_STOPS);

      const box = page.locator('#plans-job');
      await page.waitForFunction(() => Number(document.getElementById('plans-job')?.dataset.improvements) > 0);
      assert.match(
        (await page.locator('#plans-job-figures').textContent())!,
        new RegExp(`best so far: \\d+ of ${BIG_PLAN_STOPS} stops, `),
      );
      assert.ok(Number(await page.locator('#plans-job-bar').evaluate((bar: HTMLProgressElement) => bar.value)) > 0);
      assert.equal(Number(await page.locator('#plans-job-bar').getAttribute('max')), 120_000);
      mkdirSync(OUTPUT_DIR, { recursive: true });
      await page
        .locator('#plans .run-row + .job-progress')
        .screenshot({ path: join(OUTPUT_DIR, 'fleet-playground-job.png') });
      const stopped = page.waitForResponse(
        (r) => /\/api\/v1\/jobs\/[^/]+$/.test(r.url()) && r.request().method() === 'DELETE',
      );
      await page.getByRole('button', { name: 'Stop and keep the best plan' }).click();
      assert.equal((await stopped).status(), 200);

      await page.locator('#plans-result').waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await box.getAttribute('data-status'), 'cancelled');
      assert.match(
        (await page.locator('#plans-status').textContent())!,
        new RegExp(`^Stopped early, best plan kept: \\d+ of ${BIG_PLAN_STOPS} stops`),
      );
      assert.match(
        (await page.locator('#plans-totals').textContent())!,
        new RegExp(`Stops assigned\\s*\\d+ of ${BIG_PLAN_STOPS}`),
      );
      assert.ok((await page.locator('#plans-map svg .stop-marker').count()) > 0);
      assert.equal((await server.ledgerOf(key)).balance, 1000 - BIG_PLAN_STOPS, 'charged once, the plan kept');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('without shipments: a stop too heavy for every van is listed as unassigned with its reason and drawn hollow; bad input is reported', async () => {
    const packsExpected = (await packsMounted()) ? [] : [{ status: 404, path: '/api/v1/packs' }];
    const { page, errors, close } = await watchedPage([...packsExpected, { status: 400, path: '/api/v1/plans' }]);
    try {
      await openWithKey(page);
      await page.getByRole('button', { name: /^Fleet sample/ }).click();
      const stops = JSON.parse(await page.locator('#plans-stops').inputValue()) as Array<{
        id: string;
        demand: number[];
      }>;
      stops[0]!.demand = [40];
      await page.locator('#plans-stops').fill(JSON.stringify(stops));
      await page.locator('#plans-shipments').fill('');
      const sentBody = page.waitForRequest((r) => r.url().endsWith('/api/v1/plans') && r.method() === 'POST');
      const { status, plan } = await planDay(page);
      assert.equal(status, 200);
      assert.ok(!('shipments' in (await sentBody).postDataJSON()), 'an empty shipments box sends none');
      assert.equal(await page.locator('#plans-map svg :is(.pickup, .delivery, .shipment-link)').count(), 0);
      assert.deepEqual(
        [...new Set(await page.locator('#plans-schedules tbody tr td:nth-child(3)').allTextContents())],
        ['Stop'],
      );
      assert.deepEqual(
        plan.unassigned.map((u) => [u.id, u.reason]),
        [['A01', 'capacity']],
      );
      const item = page.locator('#plans-unassigned li');
      await item.waitFor({ state: 'visible' });
      assert.equal(await item.getAttribute('data-reason'), 'capacity');
      assert.match((await item.textContent())!, /^A01: No vehicle has room left for its demand/);
      assert.equal(await page.locator('#plans-map svg .unassigned-marker[data-stop-id="A01"]').count(), 1);
      assert.equal(await page.locator('#plans-map svg .stop-marker[data-stop-id="A01"]').count(), 0);

      // a capacity the table cannot read is reported before anything is sent
      await page.getByLabel('Vehicle 1 capacity (optional, e.g. 500,40)').fill('twelve');
      await page.getByRole('button', { name: 'Plan the day' }).click();
      const error = page.locator('#plans-error');
      await error.waitFor({ state: 'visible' });
      assert.match((await error.textContent())!, /Vehicle 1: capacity must be whole numbers/);
      await page.getByLabel('Vehicle 1 capacity (optional, e.g. 500,40)').fill('12');
      await page.locator('#plans-shipments').fill('{"id": "s1"}');
      await page.getByRole('button', { name: 'Plan the day' }).click();
      await page.waitForFunction(() =>
        /^Shipments JSON/.test(document.getElementById('plans-error')?.textContent ?? ''),
      );
      await page.locator('#plans-shipments').fill('');

      // the API's own checks are shown with their code: a demand with two numbers against capacities of one
      await page.getByLabel('Vehicle 1 capacity (optional, e.g. 500,40)').fill('12');
      stops[0]!.demand = [1, 2];
      await page.locator('#plans-stops').fill(JSON.stringify(stops));
      const refused = await planDay(page);
      assert.equal(refused.status, 400);
      await page.waitForFunction(
        () => document.querySelector('#plans-error .error-code')?.textContent === 'invalid_request',
      );
      assert.match((await error.textContent())!, /demand/);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
