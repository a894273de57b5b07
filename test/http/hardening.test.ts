/**
 * Hostile clients and bad days over real HTTP: security headers, CORS, client addresses behind proxies,
 * failed-login limiting, bodies (auth first, limits, deadline, global budget), checkout limits,
 * departureTime window, request ids in the ledger, reserved JSON keys.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { hashApiKey } from '../../src/billing/keys.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import { rawExchange } from '../helpers/raw-http.js';
import { manualClock, PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { MAX_JSON_DEPTH: '8' } });
});
after(async () => {
  await server.close();
});

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
    headers: {
      Origin: 'https://app.example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type',
    },
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
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: { latitude: 1, longitude: 1 }, stops: deep },
  });
  assert.equal(res.status, 400);
  assert.match(res.body.message, /nested more than 8 levels/);
});

const junkKey = (i: number) => `svc_live_${'x'.repeat(42)}${String.fromCharCode(97 + (i % 26))}`;

async function withServer(
  env: Record<string, string>,
  run: (s: TestServer) => Promise<void>,
  overrides = {},
): Promise<void> {
  const s = await startTestServer({ env, overrides });
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

describe('failed authentications', () => {
  test('past AUTH_FAILURES_PER_MINUTE a failure answers 429 rate_limited with Retry-After; a valid key from the same address is never refused', async () => {
    await withServer({ AUTH_FAILURES_PER_MINUTE: '5' }, async (s) => {
      const valid = await s.createKey('live', 1);
      for (let i = 0; i < 5; i++)
        assert.equal((await s.request('GET', '/api/v1/balance', { key: junkKey(i) })).status, 401);
      for (let i = 0; i < 31; i++) {
        const limited = await s.request('GET', '/api/v1/balance', { key: junkKey(i) });
        assert.equal(limited.status, 429);
        assert.equal(limited.body.error, 'rate_limited');
        assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      }
      // the neighbours' 36 failures change nothing for a caller with a valid key
      const ok = await s.request('GET', '/api/v1/balance', { key: valid });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, { stopsBalance: 1 });
      assert.equal(
        (
          await s.request('POST', '/api/v1/optimize', {
            key: valid,
            body: { start: PARIS_START, stops: coordinateStops(2) },
          })
        ).status,
        402,
      );
    });
  });
});

describe('client addresses behind reverse proxies (TRUST_PROXY)', () => {
  test('TRUST_PROXY=1: the rightmost X-Forwarded-For entry is the client; whatever the client wrote to its left changes nothing', async () => {
    await withServer({ TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: '10' }, async (s) => {
      const statuses: number[] = [];
      // the proxy appends the address it saw (203.0.113.7) to whatever X-Forwarded-For the client sent
      for (let i = 0; i < 40; i++) {
        const res = await s.request('GET', '/api/v1/balance', {
          key: junkKey(i),
          headers: { 'X-Forwarded-For': `198.18.${i}.1, 203.0.113.7` },
        });
        statuses.push(res.status);
      }
      assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(30).fill(429)]);
      // another client behind the same proxy has its own count
      assert.equal(
        (await s.request('GET', '/api/v1/balance', { key: junkKey(0), headers: { 'X-Forwarded-For': '203.0.113.8' } }))
          .status,
        401,
      );
    });
  });

  test('TRUST_PROXY=true (the old setting) means one proxy, never the leftmost entry', async () => {
    await withServer({ TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '3' }, async (s) => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push(
          (
            await s.request('GET', '/api/v1/balance', {
              key: junkKey(i),
              headers: { 'X-Forwarded-For': `10.9.9.${i}, 203.0.113.7` },
            })
          ).status,
        );
      assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429]);
    });
  });

  test('TRUST_PROXY as proxy addresses: entries written by trusted proxies are skipped; console test keys stay limited per real client', async () => {
    await withServer({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8', CONSOLE_TEST_KEYS_PER_IP_PER_DAY: '10' }, async (s) => {
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) {
        // client-written entry, then the edge proxy's view (the client), then an inner proxy at 10.1.2.3
        const res = await s.request('POST', '/console/api/test-keys', {
          body: { email: `user${i}@example.com` },
          headers: { 'X-Forwarded-For': `192.0.2.${i}, 203.0.113.7, 10.1.2.3` },
        });
        statuses.push(res.status);
      }
      assert.deepEqual(statuses, [...Array(10).fill(201), ...Array(5).fill(429)]);
    });
  });

  test('without TRUST_PROXY, X-Forwarded-For is ignored: the socket peer is the client', async () => {
    await withServer({ AUTH_FAILURES_PER_MINUTE: '3' }, async (s) => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (
            await s.request('GET', '/api/v1/balance', {
              key: junkKey(i),
              headers: { 'X-Forwarded-For': `198.18.0.${i}` },
            })
          ).status,
        );
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    });
  });
});

describe('request bodies', () => {
  test('without a valid key the answer comes before the body is read: 401 while the upload is unfinished, and the connection is closed', async () => {
    const { response, socket } = rawExchange(
      server.url,
      'POST /api/v1/optimize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000',
      '{"start":',
    );
    const res = await response;
    socket.destroy();
    assert.equal(res.status, 401);
    assert.equal(JSON.parse(res.body).error, 'unauthorized');
    assert.equal(res.closed, true);
  });

  test('an anonymous body past ANONYMOUS_BODY_LIMIT_BYTES is 413 from its Content-Length, at once; a chunked one once the limit is passed', async () => {
    await withServer({ ANONYMOUS_BODY_LIMIT_BYTES: '2048' }, async (s) => {
      const declared = rawExchange(
        s.url,
        'POST /api/v1/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900000',
        '{"email":',
      );
      const res = await declared.response;
      declared.socket.destroy();
      assert.equal(res.status, 413);
      assert.equal(JSON.parse(res.body).error, 'payload_too_large');
      assert.match(JSON.parse(res.body).message, /at most 2048 bytes/);
      assert.equal(res.closed, true);
      const chunk = `{"email": "${'a'.repeat(3000)}"}`;
      const chunked = rawExchange(
        s.url,
        'POST /console/api/test-keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked',
        `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      );
      const res2 = await chunked.response;
      chunked.socket.destroy();
      assert.equal(res2.status, 413);
      // a key holder gets the full limit
      const key = await s.createKey('live', 10);
      const big = await s.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(3).map((st) => ({ ...st, id: 'x'.repeat(90) + st.id })) },
      });
      assert.notEqual(big.status, 413);
    });
  });

  test('a compressed body is read within the limits of its decoded size: gzip accepted, a gzip bomb refused with 413', async () => {
    const key = await server.createKey('live', 10);
    const post = (body: Buffer) =>
      fetch(`${server.url}/api/v1/optimize`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: new Uint8Array(body),
      });
    const ok = await post(gzipSync(JSON.stringify({ start: PARIS_START, stops: coordinateStops(2) })));
    assert.equal(ok.status, 200);
    // past optimize's limit (its largest valid request, 32 MB with a full own matrix) once decoded, ~50 KB on the wire
    const bomb = gzipSync(Buffer.alloc(48 * 1024 * 1024, 0x20));
    assert.ok(bomb.length < 100_000);
    const refused = await post(bomb);
    assert.equal(refused.status, 413);
    assert.equal(((await refused.json()) as { error: string }).error, 'payload_too_large');
    assert.equal((await server.ledgerOf(key)).balance, 8);
  });

  test('a body that stalls is 408 request_timeout after BODY_TIMEOUT_MS, and the connection is closed', async () => {
    await withServer({ BODY_TIMEOUT_MS: '300' }, async (s) => {
      const key = await s.createKey('live', 10);
      const { response, socket } = rawExchange(
        s.url,
        `POST /api/v1/optimize HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 500`,
        '{"start": {',
      );
      const res = await response;
      socket.destroy();
      assert.equal(res.status, 408);
      assert.equal(JSON.parse(res.body).error, 'request_timeout');
      assert.equal(res.closed, true);
      assert.equal((await s.ledgerOf(key)).balance, 10);
    });
  });

  test('bytes held in bodies being received are capped across requests: past BODY_BYTES_IN_FLIGHT → 503 overloaded with Retry-After, freed when an upload ends', async () => {
    await withServer({ BODY_LIMIT_BYTES: '65536', BODY_BYTES_IN_FLIGHT: '65536' }, async (s) => {
      const key = await s.createKey('live', 10);
      const head = (length: number) =>
        `POST /api/v1/optimize HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}`;
      const first = rawExchange(s.url, head(40_000), '{"start":');
      await new Promise((r) => setTimeout(r, 200)); // the first upload is being read: its 40,000 bytes are reserved
      const second = rawExchange(s.url, head(40_000), '{"start":');
      const res = await second.response;
      second.socket.destroy();
      assert.equal(res.status, 503);
      assert.equal(JSON.parse(res.body).error, 'overloaded');
      assert.equal(res.headers['retry-after'], '1');
      assert.equal(res.closed, true);
      first.socket.destroy(); // the stalled client goes away: its share is given back
      first.response.catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
      const after = await s.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(2) },
      });
      assert.equal(after.status, 200, JSON.stringify(after.body));
    });
  });
});

describe('checkout limits', () => {
  let stripe: FakeStripe;
  before(async () => {
    stripe = await startFakeStripe();
  });
  after(async () => {
    await stripe.close();
  });
  const env = (extra: Record<string, string>) => ({
    STRIPE_SECRET_KEY: 'sk_test_fake123',
    STRIPE_API_BASE: stripe.url,
    ...extra,
  });
  const overrides = { payments: { stripe: { timeoutMs: 3000, maxNetworkRetries: 0 } } };

  test('an invalid request never reaches Stripe; past CHECKOUT_PER_ADDRESS_PER_MINUTE → 429 rate_limited with Retry-After, and no Stripe call', async () => {
    await withServer(
      env({ CHECKOUT_PER_ADDRESS_PER_MINUTE: '3' }),
      async (s) => {
        const before = stripe.requests.length;
        for (let i = 0; i < 20; i++)
          assert.equal(
            (await s.request('POST', '/api/v1/checkout', { body: { email: 'nope', packId: 'pack_2k' } })).status,
            400,
          );
        assert.equal(stripe.requests.length, before, 'no Stripe call for an invalid request');
        const statuses: number[] = [];
        let retryAfter = '';
        for (let i = 0; i < 6; i++) {
          const res = await s.request('POST', '/api/v1/checkout', {
            body: { email: `buyer${i}@example.com`, packId: 'pack_2k' },
          });
          statuses.push(res.status);
          if (res.status === 429) {
            assert.equal(res.body.error, 'rate_limited');
            retryAfter = res.headers.get('retry-after') ?? '';
          }
        }
        assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
        assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 120, retryAfter);
        assert.equal(stripe.requests.length, before + 3);
      },
      overrides,
    );
  });

  test('past CHECKOUT_PER_MINUTE in total, from any number of addresses → 429 rate_limited', async () => {
    await withServer(
      env({ TRUST_PROXY: '1', CHECKOUT_PER_MINUTE: '5' }),
      async (s) => {
        const before = stripe.requests.length;
        const statuses: number[] = [];
        for (let i = 0; i < 8; i++) {
          const res = await s.request('POST', '/api/v1/checkout', {
            body: { email: `b${i}@example.com`, packId: 'pack_10k' },
            headers: { 'X-Forwarded-For': `198.51.100.${i}` },
          });
          statuses.push(res.status);
        }
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
        assert.equal(stripe.requests.length, before + 5);
      },
      overrides,
    );
  });
});

describe('departureTime window', () => {
  test('outside ±DEPARTURE_WINDOW_DAYS of now → 400 invalid_request naming the window; at its edges → 200', async () => {
    const clock = manualClock('2026-06-01T08:00:00Z');
    await withServer(
      {},
      async (s) => {
        const key = await s.createKey('live', 100);
        const call = (departureTime: string) =>
          s.request('POST', '/api/v1/optimize', {
            key,
            body: { start: PARIS_START, stops: coordinateStops(2), departureTime },
          });
        for (const departureTime of [
          '9999-12-31T23:59:59Z',
          '0000-01-01T00:00:00Z',
          '2027-06-02T08:00:01Z',
          '2025-05-31T07:59:59Z',
          '2027-06-03T10:00:00',
        ]) {
          const res = await call(departureTime);
          assert.equal(res.status, 400, departureTime);
          assert.equal(res.body.error, 'invalid_request');
          assert.equal(
            res.body.message,
            'departureTime must be within 366 days of now: from 2025-05-31T08:00:00Z to 2027-06-02T08:00:00Z',
          );
        }
        assert.equal((await s.ledgerOf(key)).balance, 100, 'refused before any debit');
        for (const departureTime of ['2027-06-02T08:00:00Z', '2025-05-31T08:00:00Z', '2026-12-24T06:00:00+01:00']) {
          const res = await call(departureTime);
          assert.equal(res.status, 200, `${departureTime}: ${JSON.stringify(res.body)}`);
          assert.match(res.body.departAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        }
      },
      { clock },
    );
  });
});

describe('request ids', () => {
  test("the ledger's request_id is the service's own id; the caller's X-Request-Id is echoed and stored in its own column", async () => {
    const key = await server.createKey('live', 50);
    const forged = 'cs_test_a1ForgedLooksLikeStripe';
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3) },
      headers: { 'X-Request-Id': forged },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-request-id'), forged);
    // an address the gazetteer cannot place: debited, then refunded
    const failed = await server.request('POST', '/api/v1/optimize', {
      key,
      headers: { 'X-Request-Id': 'admin:transfer' },
      body: {
        start: PARIS_START,
        stops: [...coordinateStops(1), { id: 'nowhere', street: '1 rue X', postalCode: '00000', city: 'Nulle-Part' }],
      },
    });
    assert.equal(failed.status, 422);
    const record = await server.services.store.findKeyByHash(hashApiKey(key));
    const ledger = (await server.services.store.ledger(record!.id)).filter((e) => e.reason !== 'admin_credit');
    assert.deepEqual(
      ledger.map((e) => [e.reason, e.clientRequestId]),
      [
        ['debit', forged],
        ['debit', 'admin:transfer'],
        ['refund', 'admin:transfer'],
      ],
    );
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const entry of ledger) assert.match(entry.requestId ?? '', uuid);
    assert.notEqual(ledger[0].requestId, ledger[1].requestId);
    assert.equal(ledger[2].requestId, ledger[1].requestId, "a refund carries its debit's ids");
  });
});

describe('reserved JSON keys', () => {
  test('__proto__ and constructor keys → 400 invalid_request naming the field, on every route that reads a body', async () => {
    const key = await server.createKey('live', 10);
    const stops = JSON.stringify(coordinateStops(2));
    const nested = await server.request('POST', '/api/v1/optimize', {
      key,
      rawBody: `{"start": {"latitude": 48.85, "longitude": 2.35}, "stops": [${stops.slice(1, -1).replace(/\}$/, ', "__proto__": {"isAdmin": true}}')}]}`,
    });
    assert.equal(nested.status, 400);
    assert.equal(nested.body.error, 'invalid_request');
    assert.equal(
      nested.body.message,
      'stops[1].__proto__ is not allowed: "__proto__" and "constructor" cannot be used as property names.',
    );
    const top = await server.request('POST', '/api/v1/optimize', {
      key,
      rawBody: '{"constructor": {"prototype": {}}, "stops": []}',
    });
    assert.equal(top.status, 400);
    assert.match(top.body.message, /^constructor is not allowed/);
    const checkout = await server.request('POST', '/api/v1/checkout', {
      rawBody: '{"email": "a@b.fr", "packId": "pack_2k", "__proto__": {}}',
    });
    assert.equal(checkout.status, 400);
    assert.match(checkout.body.message, /^__proto__ is not allowed/);
    const consoleKey = await server.request('POST', '/console/api/test-keys', {
      rawBody: '{"email": {"constructor": 1}}',
    });
    assert.equal(consoleKey.status, 400);
    assert.match(consoleKey.body.message, /^email\.constructor is not allowed/);
    assert.equal((await server.ledgerOf(key)).balance, 10);
    // a real syntax error is still called one
    assert.match(
      (await server.request('POST', '/api/v1/optimize', { key, rawBody: '{"start": ' })).body.message,
      /not valid JSON/,
    );
  });
});
