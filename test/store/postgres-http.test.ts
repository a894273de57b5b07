/**
 * The real app (startTestServer) on PostgreSQL: calls are served from the
 * database named by DATABASE_URL, and when the database goes away the API
 * answers 503 storage_unavailable (Retry-After), /readyz 503, never 500.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { startPostgres } from '../helpers/postgres.js';
import { coordinateStops, PARIS_START, startTestServer } from '../helpers/server.js';

test('on PostgreSQL: a live call is debited; with the database down, 503 storage_unavailable and /readyz 503', async () => {
  const pgServer = await startPostgres();
  let server: Awaited<ReturnType<typeof startTestServer>> | null = null;
  try {
    const url = await pgServer.createDatabase('http');
    server = await startTestServer({ env: { DATABASE_URL: url, SOLVER_TIME_LIMIT_MS: '50' } });
    assert.equal(server.services.store.kind, 'postgres');
    const key = await server.createKey('live', 20);
    const ok = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(5) },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.stopsBalance, 15);
    assert.equal((await server.request('GET', '/readyz')).status, 200);

    // heartbeats in flight while the server dies: a connection lost mid-transaction must not crash the process
    let beating = true;
    const beats = (async () => {
      while (beating) await server!.services.lease.beat().catch(() => {});
    })();
    await new Promise((r) => setTimeout(r, 50));
    await pgServer.stop();
    beating = false;
    await beats;
    const down = await server.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: coordinateStops(5) },
    });
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.equal(down.body.error, 'storage_unavailable');
    assert.equal(down.headers.get('retry-after'), '1');
    assert.equal((await server.request('GET', '/readyz')).status, 503);
  } finally {
    await server?.close();
    await pgServer.stop();
  }
});
