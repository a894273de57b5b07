import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { BODY_LIMIT_BYTES: '4096' } });
});
after(async () => {
  await server.close();
});

function assertErrorBody(res: { status: number; headers: Headers; body: any }, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.body.error, code);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0);
  assert.equal(res.body.requestId, res.headers.get('x-request-id'), 'every Error body carries the X-Request-Id');
}

test('GET /healthz answers 200 {status: "ok"}', async () => {
  const res = await server.request('GET', '/healthz');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ok' });
});

test('every endpoint but checkout needs a key: missing, malformed, unknown, wrong prefix, revoked → 401 unauthorized', async () => {
  const revoked = await server.createKey('live', 5);
  const { hashApiKey } = await import('../../src/billing/keys.js');
  await server.services.store.revokeKey(hashApiKey(revoked), new Date());
  const cases: Array<Record<string, string>> = [
    {},
    { Authorization: 'Basic dXNlcjpwYXNz' },
    { Authorization: 'Bearer' },
    { Authorization: 'Bearer svc_live_' + 'A'.repeat(43) },
    { Authorization: 'Bearer sk_live_' + 'A'.repeat(43) },
    { Authorization: 'Bearer svc_test_short' },
    { Authorization: `Bearer ${revoked}` },
  ];
  for (const headers of cases) {
    for (const [method, path] of [
      ['GET', '/api/v1/balance'],
      ['POST', '/api/v1/optimize'],
    ] as const) {
      const res = await server.request(method, path, { headers, ...(method === 'POST' ? { body: {} } : {}) });
      assertErrorBody(res, 401, 'unauthorized');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
  }
  const revokedRes = await server.request('GET', '/api/v1/balance', { key: revoked });
  assert.match(revokedRes.body.message, /revoked/);
});

test('a test key presented as live (prefix swapped) is unknown', async () => {
  const key = await server.createKey('test');
  const swapped = key.replace('svc_test_', 'svc_live_');
  assertErrorBody(await server.request('GET', '/api/v1/balance', { key: swapped }), 401, 'unauthorized');
});

test('the lowercase "bearer" scheme is accepted', async () => {
  const key = await server.createKey('live', 3);
  const res = await server.request('GET', '/api/v1/balance', { headers: { Authorization: `bearer ${key}` } });
  assert.equal(res.status, 200);
});

test('balance: live {stopsBalance}; test {sandbox, sandboxStopsRemainingToday, sandboxCallsRemainingThisMinute}', async () => {
  const live = await server.createKey('live', 1234);
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key: live })).body, { stopsBalance: 1234 });
  const testKey = await server.createKey('test');
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key: testKey })).body, {
    sandbox: true,
    sandboxStopsRemainingToday: 200,
    sandboxCallsRemainingThisMinute: 20,
  });
});

test('checkout needs no key: a bad body is 400 invalid_request naming the field; payments off is 503 payment_unavailable', async () => {
  const bad = await server.request('POST', '/api/v1/checkout', { body: { email: 'not-an-email', packId: 'pack_2k' } });
  assertErrorBody(bad, 400, 'invalid_request');
  assert.match(bad.body.message, /^email must be an e-mail address$/);
  const badPack = await server.request('POST', '/api/v1/checkout', { body: { email: 'a@b.fr', packId: 'pack_1k' } });
  assert.match(badPack.body.message, /^packId must be one of pack_2k, pack_10k, pack_50k, pack_250k$/);
  assertErrorBody(
    await server.request('POST', '/api/v1/checkout', { body: { email: 'a@b.fr' } }),
    400,
    'invalid_request',
  );
});

test('402 insufficient_stops with required and balance; nothing is debited', async () => {
  const key = await server.createKey('live', 3);
  const stops = [1, 2, 3, 4].map((i) => ({ id: `s${i}`, latitude: 48.85 + i / 100, longitude: 2.35 }));
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: { latitude: 48.85, longitude: 2.35 }, stops },
  });
  assertErrorBody(res, 402, 'insufficient_stops');
  assert.equal(res.body.required, 4);
  assert.equal(res.body.balance, 3);
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 3 });
});

test('validation comes before billing: an invalid body is 400 and debits nothing', async () => {
  const key = await server.createKey('live', 10);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: { latitude: 48.85, longitude: 2.35 }, stops: [{ id: 'a', latitude: 1, longitude: 1 }] },
  });
  assertErrorBody(res, 400, 'invalid_request');
  assert.match(res.body.message, /^stops must contain at least 2 items/);
  assert.equal(res.body.param, 'stops');
  assert.equal(res.body.requestId, res.headers.get('x-request-id'));
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key })).body, { stopsBalance: 10 });
});

test('malformed JSON, a JSON primitive and a body past the size limit are Error bodies', async () => {
  const key = await server.createKey('live', 10);
  assertErrorBody(
    await server.request('POST', '/api/v1/optimize', { key, rawBody: '{"start": ' }),
    400,
    'invalid_request',
  );
  assertErrorBody(
    await server.request('POST', '/api/v1/optimize', { key, rawBody: '"hello"' }),
    400,
    'invalid_request',
  );
  assertErrorBody(
    await server.request('POST', '/api/v1/optimize', { key, rawBody: JSON.stringify({ pad: 'x'.repeat(5000) }) }),
    413,
    'payload_too_large',
  );
});

test('unknown routes are 404 not_found; a wrong method is 405 method_not_allowed with Allow', async () => {
  assertErrorBody(await server.request('GET', '/api/v1/nothing'), 404, 'not_found');
  const res = await server.request('DELETE', '/api/v1/balance');
  assertErrorBody(res, 405, 'method_not_allowed');
  assert.match(res.headers.get('allow') ?? '', /GET/);
  assertErrorBody(await server.request('GET', '/api/v1/optimize'), 405, 'method_not_allowed');
});

test('X-Request-Id: a safe incoming id is echoed, otherwise one is made', async () => {
  const echoed = await server.request('GET', '/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
  assert.equal(echoed.headers.get('x-request-id'), 'abc-123');
  const made = await server.request('GET', '/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
  assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('OpenAPI 3.1 document, version 1.0.0, lists every endpoint and every error code of the spec', async () => {
  const res = await server.request('GET', '/api/v1/openapi.json');
  assert.equal(res.status, 200);
  assert.equal(res.body.openapi, '3.1.0');
  assert.equal(res.body.info.version, '1.0.0');
  for (const path of ['/api/v1/optimize', '/api/v1/balance', '/api/v1/checkout']) assert.ok(res.body.paths[path], path);
  const text = JSON.stringify(res.body);
  for (const code of [
    'invalid_request',
    'sandbox_limit',
    'sandbox_addresses_unsupported',
    'unauthorized',
    'insufficient_stops',
    'geocoding_failed',
    'sandbox_rate_limited',
    'optimization_failed',
    'sandbox_unavailable',
    'payment_unavailable',
  ]) {
    assert.ok(text.includes(`"${code}"`), code);
  }
  const optimize = res.body.paths['/api/v1/optimize'].post.responses;
  for (const status of ['200', '400', '401', '402', '422', '429', '502', '503']) assert.ok(optimize[status], status);
  assert.ok(!text.includes('x-message'));
});

test('GET /readyz: 200 while the store and solver are up; 503 not_ready once shutdown began', async () => {
  const s = await (await import('../helpers/server.js')).startTestServer();
  const ready = await s.request('GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, { status: 'ready', checks: { store: true, solver: true } });
  await s.services.close();
  const closing = await s.request('GET', '/readyz');
  assert.equal(closing.status, 503);
  assert.equal(closing.body.error, 'not_ready');
  await s.close();
});
