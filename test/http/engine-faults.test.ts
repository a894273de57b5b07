/**
 * Outside engines that stall, fail or answer garbage, behind the real app:
 * each gives the spec's error code or falls back along the configured chain,
 * refunds, and the process stays healthy.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { startFakeBan } from '../fakes/ban.js';
import { startFakeOsrm, type FakeOsrmMode } from '../fakes/osrm.js';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

const failures: Array<[string, FakeOsrmMode]> = [
  ['stalls past its timeout', { kind: 'stall' }],
  ['answers 500', { kind: 'status', status: 500 }],
  ['answers a malformed body', { kind: 'malformed' }],
  ['answers code != Ok', { kind: 'code', code: 'NoTable' }],
  ['cannot route a pair', { kind: 'unroutable', from: 0, to: 1 }],
];

test('OSRM alone (live): every failure mode → 502 optimization_failed, refunded; OSRM answering → 200 with its matrix', async () => {
  const osrm = await startFakeOsrm();
  const server = await startTestServer({ env: { ROUTING: 'osrm', OSRM_URL: osrm.url, OSRM_TIMEOUT_MS: '300' } });
  try {
    const key = await server.createKey('live', 100);
    for (const [what, mode] of failures) {
      osrm.mode = mode;
      const res = await server.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(3) },
      });
      assert.equal(res.status, 502, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, 'optimization_failed');
      assert.equal((await server.ledgerOf(key)).balance, 100, `${what}: refunded`);
    }
    osrm.mode = { kind: 'ok' };
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(3), avoidTolls: true },
    });
    assert.equal(ok.status, 200);
    assert.equal(osrm.requests.at(-1)!.params.get('exclude'), 'toll');
    assert.equal((await server.request('GET', '/readyz')).status, 200);
  } finally {
    await server.close();
    await osrm.close();
  }
});

test('OSRM then haversine (live): every failure mode falls back and answers 200', async () => {
  const osrm = await startFakeOsrm();
  const server = await startTestServer({
    env: { ROUTING: 'osrm,haversine', OSRM_URL: osrm.url, OSRM_TIMEOUT_MS: '300' },
  });
  try {
    const key = await server.createKey('live', 100);
    for (const [what, mode] of failures) {
      osrm.mode = mode;
      const res = await server.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(3) },
      });
      assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
    }
    assert.equal((await server.ledgerOf(key)).balance, 100 - 3 * failures.length);
  } finally {
    await server.close();
    await osrm.close();
  }
});

test('sandbox engine OSRM failing in any mode → 503 sandbox_unavailable, no stop used', async () => {
  const osrm = await startFakeOsrm();
  const server = await startTestServer({
    env: { SANDBOX_ROUTING: 'osrm', OSRM_URL: osrm.url, OSRM_TIMEOUT_MS: '300' },
  });
  try {
    const key = await server.createKey('test');
    for (const [what, mode] of failures) {
      osrm.mode = mode;
      const res = await server.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: coordinateStops(3) },
      });
      assert.equal(res.status, 503, what);
      assert.equal(res.body.error, 'sandbox_unavailable');
    }
    assert.equal((await server.request('GET', '/api/v1/balance', { key })).body.sandboxStopsRemainingToday, 200);
  } finally {
    await server.close();
    await osrm.close();
  }
});

test('BAN stalling, failing or answering garbage falls back to the embedded gazetteer; BAN alone failing → 422 geocoding_failed, refunded', async () => {
  let mode: 'stall' | 'error' | 'garbage' = 'stall';
  const ban = await startFakeBan(() =>
    mode === 'stall'
      ? 'stall'
      : mode === 'error'
        ? { status: 503, body: { message: 'down' } }
        : { status: 200, body: '<html>oops' },
  );
  const chained = await startTestServer({
    env: { GEOCODER: 'ban,embedded', BAN_URL: ban.url, GEOCODER_TIMEOUT_MS: '300' },
  });
  const alone = await startTestServer({ env: { GEOCODER: 'ban', BAN_URL: ban.url, GEOCODER_TIMEOUT_MS: '300' } });
  try {
    const body = {
      start: PARIS_START,
      stops: [
        ...coordinateStops(2),
        { id: 'lyon', street: '1 rue de la Part-Dieu', postalCode: '69003', city: 'Lyon' },
      ],
    };
    for (const m of ['stall', 'error', 'garbage'] as const) {
      mode = m;
      const chainedKey = await chained.createKey('live', 10);
      const res = await chained.request('POST', '/api/v1/optimize', { key: chainedKey, body });
      assert.equal(res.status, 200, `${m}: ${JSON.stringify(res.body)}`);
      const aloneKey = await alone.createKey('live', 10);
      const failed = await alone.request('POST', '/api/v1/optimize', { key: aloneKey, body });
      assert.equal(failed.status, 422, m);
      assert.equal(failed.body.error, 'geocoding_failed');
      assert.match(failed.body.message, /stops\[2\] \(id "lyon"\)/);
      assert.equal((await alone.ledgerOf(aloneKey)).balance, 10);
    }
  } finally {
    await chained.close();
    await alone.close();
    await ban.close();
  }
});
