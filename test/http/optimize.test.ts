import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';
import { freePort } from '../helpers/process.js';
import { hashApiKey } from '../../src/billing/keys.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

test('test key: a sandbox route with schedule, Paris deadlines and quotas', async () => {
  const key = await server.createKey('test');
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: PARIS_START,
      departureTime: '2026-06-01T08:00:00+02:00',
      stops: [
        { id: 'far', latitude: 48.8738, longitude: 2.295 },
        { id: 'near', latitude: 48.853, longitude: 2.3499, serviceSeconds: 300 },
        { id: 'mid', latitude: 48.8606, longitude: 2.3376, deadline: '08:01' },
      ],
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body;
  assert.deepEqual(body.order.slice().sort(), ['far', 'mid', 'near']);
  assert.equal(body.waypoints.length, 3);
  body.waypoints.forEach((w: any, i: number) => {
    assert.equal(w.order, i + 1);
    assert.equal(w.id, body.order[i]);
    assert.equal(typeof w.latitude, 'number');
  });
  assert.equal(body.departAt, '2026-06-01T06:00:00Z');
  assert.equal(body.returnAt, null);
  assert.deepEqual(
    body.schedule.map((e: any) => e.colisId),
    body.order,
  );
  for (const e of body.schedule) assert.match(e.arrivee, /^2026-06-01T06:\d\d:\d\dZ$/);
  // 'mid' cannot be reached within a minute: it is late, with its deadline as a UTC instant
  assert.equal(body.lateStops.length, 1);
  assert.equal(body.lateStops[0].colisId, 'mid');
  assert.equal(body.lateStops[0].limite, '2026-06-01T06:01:00Z');
  assert.ok(body.lateStops[0].retardMin >= 1);
  assert.ok(body.totalDistanceKm > 0);
  assert.ok(body.estimatedTimeMin >= 5, 'service time is included');
  assert.equal(body.stopsCharged, 0);
  assert.equal(body.sandbox, true);
  assert.equal(body.sandboxStopsRemainingToday, 197);
  assert.equal(body.stopsBalance, undefined);
  const balance = await server.request('GET', '/api/v1/balance', { key });
  assert.deepEqual(balance.body, {
    sandbox: true,
    sandboxStopsRemainingToday: 197,
    sandboxCallsRemainingThisMinute: 19,
  });
});

test('test key: an end point gives returnAt; no late stops gives lateStops null', async () => {
  const key = await server.createKey('test');
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, end: PARIS_START, stops: coordinateStops(4), departureTime: '2026-01-10T09:00:00Z' },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.lateStops, null);
  assert.match(res.body.returnAt, /^2026-01-10T\d\d:\d\d:\d\dZ$/);
  assert.ok(res.body.returnAt > res.body.schedule.at(-1).arrivee);
});

test('test key: 11 stops → 400 sandbox_limit; an address → 400 sandbox_addresses_unsupported; nothing is counted', async () => {
  const key = await server.createKey('test');
  const tooMany = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(11) },
  });
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.body.error, 'sandbox_limit');
  const address = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: { street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' }, stops: coordinateStops(2) },
  });
  assert.equal(address.status, 400);
  assert.equal(address.body.error, 'sandbox_addresses_unsupported');
  assert.deepEqual((await server.request('GET', '/api/v1/balance', { key })).body, {
    sandbox: true,
    sandboxStopsRemainingToday: 200,
    sandboxCallsRemainingThisMinute: 20,
  });
});

test('test key: the 21st call in a minute is 429 sandbox_rate_limited with Retry-After, limit and resetAt', async () => {
  const key = await server.createKey('test');
  for (let i = 0; i < 20; i++) {
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(2, i + 1) },
    });
    assert.equal(ok.status, 200);
  }
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(2) },
  });
  assert.equal(res.status, 429);
  assert.equal(res.body.error, 'sandbox_rate_limited');
  assert.equal(res.body.limit, 20);
  assert.ok(Date.parse(res.body.resetAt) > Date.now());
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
});

test('live key: debited one stop per stop sent; stopsCharged and stopsBalance; ledger matches', async () => {
  const key = await server.createKey('live', 20);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: coordinateStops(7) },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.stopsCharged, 7);
  assert.equal(res.body.stopsBalance, 13);
  assert.equal(res.body.sandbox, undefined);
  assert.equal(res.body.sandboxStopsRemainingToday, undefined);
  assert.deepEqual(await server.ledgerOf(key), { balance: 13, sum: 13, reasons: ['admin_credit', 'debit'] });
});

test('live key: 200 stops end to end, with addresses geocoded by the embedded gazetteer', async () => {
  const key = await server.createKey('live', 500);
  const stops: Array<Record<string, unknown>> = coordinateStops(198, 7);
  stops.push({ id: 'lyon', street: '10 rue de la République', postalCode: '69003', city: 'Lyon' });
  stops.push({
    id: 'ste',
    street: '1 place',
    postalCode: '42000',
    city: 'St Etienne',
    deadline: '23:59',
    serviceSeconds: 600,
  });
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, end: { street: '1 rue', postalCode: '75004', city: 'Paris' }, stops },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.order.length, 200);
  assert.equal(new Set(res.body.order).size, 200);
  const lyon = res.body.waypoints.find((w: any) => w.id === 'lyon');
  assert.ok(Math.abs(lyon.latitude - 45.76) < 0.05 && Math.abs(lyon.longitude - 4.85) < 0.06, JSON.stringify(lyon));
  assert.equal(res.body.stopsCharged, 200);
  assert.equal(res.body.stopsBalance, 300);
});

test('live key: an address that cannot be geocoded → 422 geocoding_failed naming it; refunded', async () => {
  const key = await server.createKey('live', 10);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: PARIS_START,
      stops: [...coordinateStops(2), { id: 'ghost', street: '1 rue', postalCode: '99999', city: 'Nulle-Part' }],
    },
  });
  assert.equal(res.status, 422);
  assert.equal(res.body.error, 'geocoding_failed');
  assert.match(res.body.message, /stops\[2\] \(id "ghost"\)/);
  assert.deepEqual(await server.ledgerOf(key), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
});

test('Idempotency-Key: same key and body replays without a second debit; another body → 409', async () => {
  const key = await server.createKey('live', 30);
  const body = { start: PARIS_START, stops: coordinateStops(5) };
  const first = await server.request('POST', '/api/v1/optimize', {
    key,
    body,
    headers: { 'Idempotency-Key': 'order-42' },
  });
  assert.equal(first.status, 200);
  const replay = await server.request('POST', '/api/v1/optimize', {
    key,
    body,
    headers: { 'Idempotency-Key': 'order-42' },
  });
  assert.equal(replay.status, 200);
  assert.deepEqual(replay.body, first.body);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const conflict = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { ...body, avoidTolls: true },
    headers: { 'Idempotency-Key': 'order-42' },
  });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.body.error, 'idempotency_conflict');
  assert.deepEqual(await server.ledgerOf(key), { balance: 25, sum: 25, reasons: ['admin_credit', 'debit'] });
  // the same Idempotency-Key under another API key is independent
  const other = await server.createKey('live', 5);
  assert.equal(
    (await server.request('POST', '/api/v1/optimize', { key: other, body, headers: { 'Idempotency-Key': 'order-42' } }))
      .body.stopsBalance,
    0,
  );
});

test('Idempotency-Key: a failed call frees the key, so a retry runs', async () => {
  const key = await server.createKey('live', 3);
  const body = { start: PARIS_START, stops: coordinateStops(4) };
  const failed = await server.request('POST', '/api/v1/optimize', { key, body, headers: { 'Idempotency-Key': 'k1' } });
  assert.equal(failed.status, 402);
  const { store } = server.services;
  const record = await store.findKeyByHash(hashApiKey(key));
  await store.credit(record!.id, 10, 'admin_credit', null, new Date());
  const retried = await server.request('POST', '/api/v1/optimize', { key, body, headers: { 'Idempotency-Key': 'k1' } });
  assert.equal(retried.status, 200);
  assert.equal(retried.body.stopsBalance, 9);
});

test('50 concurrent 50-stop live calls all complete and the balance equals the ledger', async () => {
  const key = await server.createKey('live', 2600);
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      server.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(50, i + 100) },
      }),
    ),
  );
  assert.deepEqual(
    results.map((r) => r.status),
    Array(50).fill(200),
  );
  const balances = results.map((r) => r.body.stopsBalance).sort((a, b) => a - b);
  assert.deepEqual(
    balances,
    Array.from({ length: 50 }, (_, i) => 100 + i * 50),
  );
  const ledger = await server.ledgerOf(key);
  assert.equal(ledger.balance, 100);
  assert.equal(ledger.sum, 100);
});

test('50 stops, 10 parallel 10-stop calls over HTTP: exactly 5 succeed, the rest are 402, balance 0', async () => {
  const key = await server.createKey('live', 50);
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      server.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(10, i + 1) },
      }),
    ),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 5);
  assert.equal(results.filter((r) => r.status === 402 && r.body.error === 'insufficient_stops').length, 5);
  assert.deepEqual(await server.ledgerOf(key), {
    balance: 0,
    sum: 0,
    reasons: ['admin_credit', ...Array(5).fill('debit')],
  });
});

test('routing engines down: live → 502 optimization_failed refunded; sandbox → 503 sandbox_unavailable, no stops used', async () => {
  const port = await freePort();
  const down = await startTestServer({
    env: { ROUTING: 'osrm', SANDBOX_ROUTING: 'osrm', OSRM_URL: `http://127.0.0.1:${port}`, OSRM_TIMEOUT_MS: '500' },
  });
  try {
    const live = await down.createKey('live', 10);
    const res = await down.request('POST', '/api/v1/optimize', {
      key: live,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(res.status, 502);
    assert.equal(res.body.error, 'optimization_failed');
    assert.deepEqual(await down.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });

    const testKey = await down.createKey('test');
    const sandbox = await down.request('POST', '/api/v1/optimize', {
      key: testKey,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(sandbox.status, 503);
    assert.equal(sandbox.body.error, 'sandbox_unavailable');
    assert.equal((await down.request('GET', '/api/v1/balance', { key: testKey })).body.sandboxStopsRemainingToday, 200);
  } finally {
    await down.close();
  }
});

test('live routing falls back to the next engine in the chain', async () => {
  const port = await freePort();
  const chained = await startTestServer({
    env: { ROUTING: 'osrm,haversine', OSRM_URL: `http://127.0.0.1:${port}`, OSRM_TIMEOUT_MS: '500' },
  });
  try {
    const key = await chained.createKey('live', 10);
    const res = await chained.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3) },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.stopsBalance, 7);
  } finally {
    await chained.close();
  }
});
