/** The console's API (POST /console/api/test-keys) and its static files, over real HTTP. */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CONSOLE_CSP, STATIC_DIR } from '../../src/console/router.js';
import { manualClock, startTestServer, type TestServer } from '../helpers/server.js';

const issue = (server: TestServer, email: unknown, headers?: Record<string, string>) =>
  server.request('POST', '/console/api/test-keys', { body: { email }, ...(headers ? { headers } : {}) });

describe('POST /console/api/test-keys', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  test('returns 201 with a working test key, not cached', async () => {
    const res = await issue(server, 'someone@example.com');
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body), ['key']);
    assert.match(res.body.key, /^svc_test_[A-Za-z0-9_-]{43}$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');

    const balance = await server.request('GET', '/api/v1/balance', { key: res.body.key });
    assert.equal(balance.status, 200);
    assert.deepEqual(balance.body, {
      sandbox: true,
      sandboxStopsRemainingToday: 200,
      sandboxCallsRemainingThisMinute: 20,
    });

    const second = await issue(server, 'someone@example.com');
    assert.equal(second.status, 201);
    assert.notEqual(second.body.key, res.body.key, 'every call creates a new key');
  });

  test('the key is a sandboxed test key: optimize answers with sandbox fields and charges nothing', async () => {
    const { body } = await issue(server, 'sandbox@example.com');
    const res = await server.request('POST', '/api/v1/optimize', {
      key: body.key,
      body: {
        start: { latitude: 48.8566, longitude: 2.3522 },
        stops: [
          { id: 'a', latitude: 48.86, longitude: 2.34 },
          { id: 'b', latitude: 48.85, longitude: 2.35 },
        ],
      },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.sandbox, true);
    assert.equal(res.body.stopsCharged, 0);
    assert.equal(res.body.sandboxStopsRemainingToday, 198);
  });

  for (const [name, body] of [
    ['not an e-mail', { email: 'not-an-address' }],
    ['an empty e-mail', { email: '' }],
    ['a number', { email: 42 }],
    ['no e-mail', {}],
    ['an unknown property', { email: 'a@example.com', admin: true }],
    ['an array', [{ email: 'a@example.com' }]],
  ] as const) {
    test(`400 invalid_request for ${name}`, async () => {
      const res = await server.request('POST', '/console/api/test-keys', { body });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_request');
      assert.equal(typeof res.body.message, 'string');
      assert.ok(res.body.message.length > 0);
    });
  }

  test('400 for a body that is not JSON', async () => {
    const res = await server.request('POST', '/console/api/test-keys', { rawBody: '{"email": ' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
  });

  test('an e-mail that is too long is refused', async () => {
    const res = await issue(server, `${'a'.repeat(250)}@example.com`);
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
  });

  test('only POST: GET is 405', async () => {
    const res = await server.request('GET', '/console/api/test-keys');
    assert.equal(res.status, 405);
  });
});

describe('abuse limits of the console', () => {
  test('per client address: the next key within 24 hours is 429 rate_limited with Retry-After; 24 hours later it works again', async () => {
    const clock = manualClock('2026-06-01T10:00:00Z');
    const server = await startTestServer({
      env: { CONSOLE_TEST_KEYS_PER_IP_PER_DAY: '2', CONSOLE_TEST_KEYS_PER_EMAIL_PER_DAY: '100' },
      overrides: { clock },
    });
    try {
      assert.equal((await issue(server, 'one@example.com')).status, 201);
      clock.advance(3_600_000);
      assert.equal((await issue(server, 'two@example.com')).status, 201);
      const refused = await issue(server, 'three@example.com');
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'rate_limited');
      assert.match(refused.body.message, /network address \(2 per 24 hours\)/);
      assert.equal(
        refused.body.resetAt,
        '2026-06-02T10:00:00.000Z',
        'the oldest key of the window leaves it 24 hours after it was made',
      );
      assert.equal(refused.headers.get('retry-after'), String(23 * 3600));
      assert.equal(refused.body.key, undefined);

      clock.set('2026-06-02T10:00:00Z');
      assert.equal((await issue(server, 'three@example.com')).status, 201, 'the rolling window moved on');
      assert.equal((await issue(server, 'four@example.com')).status, 429);
    } finally {
      await server.close();
    }
  });

  test('per e-mail address: case and spaces do not make a new address', async () => {
    const server = await startTestServer({
      env: { CONSOLE_TEST_KEYS_PER_EMAIL_PER_DAY: '2', CONSOLE_TEST_KEYS_PER_IP_PER_DAY: '100' },
    });
    try {
      assert.equal((await issue(server, 'Same@Example.com')).status, 201);
      assert.equal((await issue(server, 'same@example.com')).status, 201);
      const refused = await issue(server, 'SAME@example.COM');
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'rate_limited');
      assert.match(refused.body.message, /e-mail address \(2 per 24 hours\)/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter > 86_000 && retryAfter <= 86_400,
        `Retry-After ${retryAfter}`,
      );
      assert.equal((await issue(server, 'other@example.com')).status, 201, 'another address is not affected');
    } finally {
      await server.close();
    }
  });

  test('refused requests create no key', async () => {
    const server = await startTestServer({ env: { CONSOLE_TEST_KEYS_PER_IP_PER_DAY: '1' } });
    try {
      assert.equal((await issue(server, 'a@example.com')).status, 201);
      for (let i = 0; i < 3; i += 1) assert.equal((await issue(server, `b${i}@example.com`)).status, 429);
      const keys = await server.services.store.listKeys();
      assert.equal(keys.length, 1);
    } finally {
      await server.close();
    }
  });

  test('behind a trusted proxy the limit is per forwarded client address', async () => {
    const server = await startTestServer({ env: { CONSOLE_TEST_KEYS_PER_IP_PER_DAY: '1', TRUST_PROXY: 'true' } });
    try {
      assert.equal((await issue(server, 'a@example.com', { 'X-Forwarded-For': '203.0.113.1' })).status, 201);
      assert.equal((await issue(server, 'b@example.com', { 'X-Forwarded-For': '203.0.113.2' })).status, 201);
      assert.equal((await issue(server, 'c@example.com', { 'X-Forwarded-For': '203.0.113.1' })).status, 429);
    } finally {
      await server.close();
    }
  });
});

describe('console and docs pages', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  const get = async (path: string) => {
    const res = await fetch(server.url + path);
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      csp: res.headers.get('content-security-policy'),
      headers: res.headers,
      text: await res.text(),
    };
  };

  test('pages are HTML with the console CSP', async () => {
    for (const path of [
      '/console',
      '/console/',
      '/console/checkout/success?session_id=cs_test_1',
      '/console/checkout/cancel',
    ]) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.type, 'text/html; charset=utf-8', path);
      assert.equal(res.csp, CONSOLE_CSP, path);
      assert.match(res.csp!, /script-src 'self';/);
      assert.doesNotMatch(res.csp!, /unsafe/);
      assert.match(res.csp!, /frame-ancestors 'none'/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
  });

  test('assets have the right content types', async () => {
    const expected: Record<string, string> = {
      '/console/assets/app.js': 'text/javascript; charset=utf-8',
      '/console/assets/route-map.js': 'text/javascript; charset=utf-8',
      '/console/assets/console.css': 'text/css; charset=utf-8',
      '/console/assets/favicon.svg': 'image/svg+xml',
      '/docs/assets/swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      '/docs/assets/swagger-ui.css': 'text/css; charset=utf-8',
      '/docs/assets/docs.js': 'text/javascript; charset=utf-8',
      '/docs/assets/favicon-32x32.png': 'image/png',
    };
    for (const [path, type] of Object.entries(expected)) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.type, type, path);
    }
  });

  test('/docs has its own CSP: inline styles for Swagger UI, never inline scripts', async () => {
    const res = await get('/docs');
    assert.equal(res.status, 200);
    assert.equal(res.type, 'text/html; charset=utf-8');
    assert.match(res.csp!, /style-src 'self' 'unsafe-inline'/);
    assert.match(res.csp!, /script-src 'self';/);
    assert.doesNotMatch(res.csp!, /script-src[^;]*unsafe/);
    assert.match(res.text, /\/docs\/assets\/swagger-ui-bundle\.js/);
    const openapi = await server.request('GET', '/api/v1/openapi.json');
    assert.equal(openapi.status, 200);
  });

  test('unknown files and path tricks are 404 Error bodies', async () => {
    for (const path of [
      '/console/assets/nope.js',
      '/console/assets/..%2Findex.html',
      '/console/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/docs/assets/index.html',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/assets/package.json',
      '/console/index.html',
    ]) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      assert.equal(JSON.parse(res.text).error, 'not_found', path);
    }
  });

  test('every file a page or module refers to is served from this server (nothing from outside)', async () => {
    const seen = new Set<string>();
    const queue = ['/console', '/console/checkout/success', '/console/checkout/cancel', '/docs'];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await get(path);
      assert.equal(res.status, 200, path);
      if (path.startsWith('/docs/assets/swagger-ui')) continue; // the vendored Swagger UI files themselves are not crawled
      const refs = [
        ...[...res.text.matchAll(/(?:src|href)="([^"#]+)"/g)].map((m) => m[1]!),
        ...[...res.text.matchAll(/^import [^'"]*['"]([^'"]+)['"]/gm)].map(
          (m) => new URL(m[1]!, server.url + path).pathname,
        ),
      ];
      for (const ref of refs) {
        assert.ok(ref.startsWith('/'), `${path} refers to ${ref}: only local paths`);
        if (ref.startsWith('/console') || ref.startsWith('/docs')) queue.push(ref);
      }
    }
    assert.ok(seen.has('/console/assets/playground.js'));
    assert.ok(seen.has('/docs/assets/swagger-ui-bundle.js'));
  });

  test('no inline script or style in the console files', () => {
    const files = [
      ...readdirSync(STATIC_DIR).map((f) => join(STATIC_DIR, f)),
      ...readdirSync(join(STATIC_DIR, 'docs')).map((f) => join(STATIC_DIR, 'docs', f)),
    ].filter((f) => f.endsWith('.html'));
    assert.ok(files.length >= 4);
    for (const file of files) {
      const html = readFileSync(file, 'utf8');
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${file}: inline script`);
      assert.doesNotMatch(html, /\sstyle=/, `${file}: inline style`);
      assert.doesNotMatch(html, /\son[a-z]+=/, `${file}: inline event handler`);
      assert.doesNotMatch(html, /https?:\/\//, `${file}: outside address`);
    }
  });
});
