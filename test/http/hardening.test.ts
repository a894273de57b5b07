import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => { server = await startTestServer({ env: { MAX_JSON_DEPTH: '8' } }); });
after(async () => { await server.close(); });

test('security headers on API answers', async () => {
  const res = await server.request('GET', '/api/v1/balance');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
});

test('CORS: any origin may call the API; preflight answers 204 with the allowed headers', async () => {
  const preflight = await server.request('OPTIONS', '/api/v1/optimize', {
    headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
  const res = await server.request('GET', '/healthz', { headers: { Origin: 'https://app.example.com' } });
  assert.equal(res.headers.get('access-control-allow-origin'), null, 'only the API is CORS-enabled');
  const api = await server.request('GET', '/api/v1/balance', { headers: { Origin: 'https://app.example.com' } });
  assert.equal(api.headers.get('access-control-allow-origin'), '*');
  assert.match(api.headers.get('access-control-expose-headers') ?? '', /Retry-After/);
});

test('CORS with a list of origins allows only those', async () => {
  const strict = await startTestServer({ env: { CORS_ORIGINS: 'https://ok.example.com' } });
  try {
    const ok = await strict.request('GET', '/api/v1/balance', { headers: { Origin: 'https://ok.example.com' } });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://ok.example.com');
    const other = await strict.request('GET', '/api/v1/balance', { headers: { Origin: 'https://evil.example.com' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  } finally {
    await strict.close();
  }
});

test('a body nested deeper than MAX_JSON_DEPTH is 400 invalid_request', async () => {
  const key = await server.createKey('live', 10);
  let deep: unknown = 1;
  for (let i = 0; i < 20; i++) deep = [deep];
  const res = await server.request('POST', '/api/v1/optimize', { key, body: { start: { latitude: 1, longitude: 1 }, stops: deep } });
  assert.equal(res.status, 400);
  assert.match(res.body.message, /nested more than 8 levels/);
});

test('repeated failed authentications from one address → 429 rate_limited, even with a valid key', async () => {
  const limitedServer = await startTestServer({ env: { AUTH_FAILURES_PER_MINUTE: '5' } });
  try {
    const valid = await limitedServer.createKey('live', 1);
    assert.equal((await limitedServer.request('GET', '/api/v1/balance', { key: valid })).status, 200, 'successes do not count');
    for (let i = 0; i < 5; i++) assert.equal((await limitedServer.request('GET', '/api/v1/balance', { key: 'svc_live_' + 'x'.repeat(43) })).status, 401);
    const limited = await limitedServer.request('GET', '/api/v1/balance', { key: valid });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  } finally {
    await limitedServer.close();
  }
});
