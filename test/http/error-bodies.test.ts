/**
 * Error bodies: the spec's {error, message}, plus requestId on every one and
 * param on validation errors. Rate limits: the RateLimit-* headers beside
 * Retry-After on sandbox answers and on every 429.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import {
  PARIS_START,
  coordinateStops,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { SANDBOX_CALLS_PER_MINUTE: '3', SANDBOX_STOPS_PER_DAY: '8' } });
});
after(async () => {
  await server.close();
});

function errorBody(res: TestResponse, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error, code);
  assert.equal(typeof res.body.message, 'string');
  const id = res.headers.get('x-request-id');
  assert.ok(id);
  assert.equal(res.body.requestId, id);
}

function rateLimitHeaders(res: TestResponse): { limit: number; remaining: number; reset: number } {
  const read = (name: string) => {
    const value = res.headers.get(name);
    assert.match(value ?? '', /^\d+$/, `${name}: ${value}`);
    return Number(value);
  };
  return { limit: read('ratelimit-limit'), remaining: read('ratelimit-remaining'), reset: read('ratelimit-reset') };
}

test('every kind of Error body carries the request id it was answered under', async () => {
  const key = await server.createKey('live', 5);
  errorBody(
    await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: [] } }),
    400,
    'invalid_request',
  );
  errorBody(await server.request('POST', '/api/v1/optimize', { key, rawBody: '{"start":' }), 400, 'invalid_request');
  errorBody(await server.request('GET', '/api/v1/balance', { key: `svc_live_${'y'.repeat(43)}` }), 401, 'unauthorized');
  errorBody(
    await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(6) } }),
    402,
    'insufficient_stops',
  );
  errorBody(await server.request('GET', '/api/v1/nothing-here'), 404, 'not_found');
  errorBody(await server.request('DELETE', '/api/v1/balance'), 405, 'method_not_allowed');
  errorBody(
    await server.request('POST', '/api/v1/checkout', { body: { email: 'a@example.com', packId: 'pack_2k' } }),
    503,
    'payment_unavailable',
  );
  // a caller's own id is the one quoted back
  const own = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {},
    headers: { 'X-Request-Id': 'support-ticket-42' },
  });
  errorBody(own, 400, 'invalid_request');
  assert.equal(own.body.requestId, 'support-ticket-42');
});

test('validation errors name the offending field in param; other errors have none', async () => {
  const key = await server.createKey('live', 5);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: PARIS_START,
      stops: [
        { id: 'a', latitude: 48.85, longitude: 2.35 },
        { id: 'b', lat: 48.86, lng: 2.34 },
      ],
    },
  });
  errorBody(res, 400, 'invalid_request');
  assert.equal(res.body.param, 'stops[1].lat');
  assert.match(res.body.message, /^stops\[1\] has "lat", "lng": use latitude and longitude/);
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'param', 'requestId']);
  const checkout = await server.request('POST', '/api/v1/checkout', {
    body: { email: 'not-an-email', packId: 'pack_2k' },
  });
  errorBody(checkout, 400, 'invalid_request');
  assert.equal(checkout.body.param, 'email');
  const malformed = await server.request('POST', '/api/v1/optimize', { key, rawBody: 'nope' });
  assert.equal(malformed.body.param, undefined);
});

test('test keys: every answer carries RateLimit headers for the per-minute window; the 429 adds Retry-After', async () => {
  const key = await server.createKey('test');
  for (let call = 1; call <= 3; call++) {
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(2, call) },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const headers = rateLimitHeaders(ok);
    assert.equal(headers.limit, 3);
    assert.equal(headers.remaining, 3 - call);
    assert.ok(headers.reset >= 1 && headers.reset <= 60, String(headers.reset));
    assert.equal(ok.headers.get('retry-after'), null);
  }
  const limited = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(2, 9) },
  });
  errorBody(limited, 429, 'sandbox_rate_limited');
  const headers = rateLimitHeaders(limited);
  assert.deepEqual({ limit: headers.limit, remaining: headers.remaining }, { limit: 3, remaining: 0 });
  assert.equal(headers.reset, Number(limited.headers.get('retry-after')));
  assert.equal(limited.body.limit, 3);
});

test('test keys: the per-day stop cap answers 429 with RateLimit headers counting stops until Paris midnight', async () => {
  const key = await server.createKey('test');
  const first = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(6) },
  });
  assert.equal(first.status, 200);
  const over = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(3) },
  });
  errorBody(over, 429, 'sandbox_rate_limited');
  const headers = rateLimitHeaders(over);
  assert.equal(headers.limit, 8);
  assert.equal(headers.remaining, 0);
  const untilMidnight = Math.ceil((Date.parse(over.body.resetAt) - Date.now()) / 1000);
  assert.ok(Math.abs(headers.reset - untilMidnight) <= 2, `${headers.reset} vs ${untilMidnight}`);
  assert.equal(Number(over.headers.get('retry-after')), headers.reset);
});

test('429 rate_limited (failed authentications) carries the same headers', async () => {
  const own = await startTestServer({ env: { AUTH_FAILURES_PER_MINUTE: '2' } });
  try {
    const bogus = `svc_test_${'z'.repeat(43)}`;
    for (let i = 0; i < 2; i++) assert.equal((await own.request('GET', '/api/v1/balance', { key: bogus })).status, 401);
    const limited = await own.request('GET', '/api/v1/balance', { key: bogus });
    errorBody(limited, 429, 'rate_limited');
    const headers = rateLimitHeaders(limited);
    assert.deepEqual({ limit: headers.limit, remaining: headers.remaining }, { limit: 2, remaining: 0 });
    // the limiter estimates a rolling minute from two one-minute buckets: the wait is at most two minutes
    assert.ok(headers.reset >= 1 && headers.reset <= 120, String(headers.reset));
    assert.equal(Number(limited.headers.get('retry-after')), headers.reset);
  } finally {
    await own.close();
  }
});

test('browsers may read the RateLimit headers (CORS exposes them)', async () => {
  const res = await server.request('GET', '/api/v1/balance', { headers: { Origin: 'https://app.example.com' } });
  const exposed = (res.headers.get('access-control-expose-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id'])
    assert.ok(exposed.includes(h), h);
});
