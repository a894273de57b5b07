import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { hashApiKey } from '../../src/billing/keys.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { coordinateStops, PARIS_START, tempDir } from '../helpers/server.js';
import { startServiceProcess } from '../helpers/process.js';

async function liveKey(databasePath: string, stops: number): Promise<string> {
  const seed = new SqliteStore(databasePath);
  const { key } = await new Billing(seed, {
    limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
  }).issueKey('live', { stops });
  await seed.close();
  return key;
}

test('SIGTERM under load: /readyz 503 at once, served during the drain delay, then refused; in-flight calls finish and are charged once; exit 0', async () => {
  const databasePath = join(tempDir('ros-shutdown-'), 'db.sqlite');
  const key = await liveKey(databasePath, 10_000);
  // 4 calls of 2.5 s on 2 workers: the last two finish after the 3 s drain delay, once the listener is closed
  const server = await startServiceProcess({
    DATABASE_PATH: databasePath,
    SOLVER_TIME_LIMIT_MS: '2500',
    SOLVER_POOL_SIZE: '2',
    SHUTDOWN_DRAIN_MS: '3000',
    LOG_LEVEL: 'info',
  });

  const call = async (seed: number, stops: number) => {
    try {
      const res = await fetch(`${server.url}/api/v1/optimize`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ start: PARIS_START, stops: coordinateStops(stops, seed) }),
      });
      return {
        status: res.status,
        connection: res.headers.get('connection'),
        body: (await res.json()) as { stopsCharged?: number },
      };
    } catch {
      return { status: 0, connection: null, body: {} };
    }
  };
  const inFlight = Array.from({ length: 4 }, (_, i) => call(i + 1, 150));
  await new Promise((r) => setTimeout(r, 400)); // the calls are being solved
  server.child.kill('SIGTERM');
  let ready = await fetch(`${server.url}/readyz`);
  for (let i = 0; ready.status === 200 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 20));
    ready = await fetch(`${server.url}/readyz`);
  }
  assert.equal(ready.status, 503, 'readiness drops once the signal arrives');
  assert.equal(((await ready.json()) as { message: string }).message, 'The service is shutting down.');
  // the solver is busy with the calls above; an API call that needs no solver shows the listener still serving
  const balance = () =>
    fetch(`${server.url}/api/v1/balance`, { headers: { Authorization: `Bearer ${key}` } }).then(
      (res) => ({ status: res.status, connection: res.headers.get('connection') }),
      () => ({ status: 0, connection: null }),
    );
  const during = await balance();
  assert.equal(during.status, 200, 'a call during the drain delay is still served');
  assert.equal(during.connection, 'close', 'and asks the client to reconnect elsewhere');
  assert.doesNotMatch(server.output(), /no new connections/, 'the drain delay was still running');

  for (let i = 0; !/no new connections/.test(server.output()); i++) {
    assert.ok(i < 500, 'the listener closes after the drain delay');
    await new Promise((r) => setTimeout(r, 20));
  }
  const late = await balance();
  assert.equal(late.status, 0, 'after the drain delay the listener is closed');
  const results = await Promise.all(inFlight);
  assert.deepEqual(
    results.map((r) => r.status),
    [200, 200, 200, 200],
    server.output(),
  );
  assert.equal(await server.exited, 0);
  assert.match(server.output(), /still serving during the drain delay/);
  assert.match(server.output(), /"msg":"stopped"/);

  const store = new SqliteStore(databasePath);
  assert.equal((await store.checkIntegrity(new Date())).ok, true);
  assert.equal((await store.findKeyByHash(hashApiKey(key)))!.balance, 10_000 - 4 * 150);
  await store.close();
});

test('a second signal during the drain exits at once (128 + signal number)', async () => {
  const databasePath = join(tempDir('ros-shutdown-'), 'db.sqlite');
  const server = await startServiceProcess({ DATABASE_PATH: databasePath, SHUTDOWN_DRAIN_MS: '60000' });
  server.child.kill('SIGTERM');
  for (let i = 0; (await fetch(`${server.url}/readyz`)).status !== 503; i++) {
    assert.ok(i < 100, 'readiness drops after SIGTERM');
    await new Promise((r) => setTimeout(r, 20));
  }
  const second = Date.now();
  server.child.kill('SIGINT');
  assert.equal(await server.exited, 130);
  assert.ok(Date.now() - second < 5_000, 'without waiting for the drain delay');
  assert.match(server.output(), /second signal/);
});
