import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { hashApiKey } from '../../src/billing/keys.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { coordinateStops, PARIS_START, tempDir } from '../helpers/server.js';
import { startServiceProcess } from '../helpers/process.js';

test('SIGTERM under load: in-flight calls finish and are charged once, new calls are refused, exit 0, db check passes', async () => {
  const databasePath = join(tempDir('ros-shutdown-'), 'db.sqlite');
  const seed = new SqliteStore(databasePath);
  const { key } = await new Billing(seed, { limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 } }).issueKey('live', { stops: 10_000 });
  await seed.close();
  const server = await startServiceProcess({ DATABASE_PATH: databasePath, SOLVER_TIME_LIMIT_MS: '1500', SOLVER_POOL_SIZE: '2', LOG_LEVEL: 'info' });

  const call = async (i: number) => {
    try {
      const res = await fetch(`${server.url}/api/v1/optimize`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ start: PARIS_START, stops: coordinateStops(150, i + 1) }),
      });
      return { status: res.status, body: await res.json() as { stopsCharged?: number } };
    } catch {
      return { status: 0, body: {} };
    }
  };
  const inFlight = Array.from({ length: 4 }, (_, i) => call(i));
  await new Promise((r) => setTimeout(r, 400)); // the calls are being solved
  server.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  const late = await call(99);
  assert.equal(late.status, 0, 'a call after SIGTERM is refused (the listener is closed)');
  const results = await Promise.all(inFlight);
  assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200], server.output());
  assert.equal(await server.exited, 0);
  assert.match(server.output(), /shutting down/);

  const store = new SqliteStore(databasePath);
  assert.equal((await store.checkIntegrity(new Date())).ok, true);
  assert.equal((await store.findKeyByHash(hashApiKey(key)))!.balance, 10_000 - 4 * 150);
  await store.close();
});
