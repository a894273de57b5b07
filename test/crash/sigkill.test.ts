/**
 * Crash test: a server under concurrent live-key traffic is killed with
 * SIGKILL at random moments, several rounds, and restarted on the same
 * database (each start is a new instance with its own lease; the killed one's
 * charges are settled once its lease expires). Clients retry unanswered calls
 * with the same Idempotency-Key.
 * In the end every logical call that got a 200 is debited exactly once,
 * every other not at all, and the database passes its integrity check.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { Billing } from '../../src/billing/billing.js';
import { hashApiKey } from '../../src/billing/keys.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { coordinateStops, PARIS_START, tempDir } from '../helpers/server.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../helpers/process.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const CLIENTS = 6;

interface LogicalCall {
  id: string;
  stops: number;
  status: number | 'lost';
}

test(`SIGKILL under load, ${ROUNDS} rounds: every 200 debited exactly once, nothing else debited, db check passes`, async () => {
  const dir = tempDir('ros-crash-');
  const databasePath = join(dir, 'crash.db');
  const seedStore = new SqliteStore(databasePath);
  const { key, record } = await new Billing(seedStore, {
    limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
  }).issueKey('live', { stops: 1_000_000 });
  await seedStore.close();

  // a short lease: each restart is a new instance, and the one killed before it is settled once its lease expires
  const env = {
    DATABASE_PATH: databasePath,
    LEASE_EXPIRY_MS: '2000',
    LEASE_HEARTBEAT_MS: '500',
    REQUEST_DEADLINE_MS: '5000',
    SOLVER_TIME_LIMIT_MS: '200',
    LOG_LEVEL: 'warn',
  };
  const port = await freePort();
  const calls = new Map<string, LogicalCall>();
  let sequence = 0;
  let random = 12345;
  const rand = () => {
    random = (random * 1103515245 + 12345) % 2147483648;
    return random / 2147483648;
  };

  async function call(server: ServiceProcess, logical: LogicalCall): Promise<void> {
    try {
      const res = await fetch(`${server.url}/api/v1/optimize`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': logical.id,
          'X-Request-Id': logical.id,
        },
        body: JSON.stringify({
          start: PARIS_START,
          stops: coordinateStops(logical.stops, Number(logical.id.slice(5)) + 1),
        }),
      });
      await res.json();
      logical.status = res.status;
    } catch {
      logical.status = 'lost';
    }
  }

  let killedMidFlight = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServiceProcess(env, port);
    // first, settle the calls the previous crash left unanswered
    for (const logical of calls.values())
      if (logical.status === 'lost' || logical.status === 409) await call(server, logical);
    let stop = false;
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (!stop) {
        const logical: LogicalCall = { id: `call-${sequence++}`, stops: 2 + Math.floor(rand() * 40), status: 'lost' };
        calls.set(logical.id, logical);
        await call(server, logical);
      }
    });
    await new Promise((r) => setTimeout(r, 400 + rand() * 1200));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(clients);
    assert.equal(await server.exited, 'SIGKILL');
    killedMidFlight += [...calls.values()].filter((c) => c.status === 'lost').length;
  }

  // last restart: the remaining unanswered calls are retried until each has an answer (409 while the killed
  // instance's lease has not expired yet), and the killed instances' charges are settled
  const server = await startServiceProcess(env, port);
  const store = new SqliteStore(databasePath);
  for (let attempt = 0; ; attempt++) {
    const open = [...calls.values()].filter((c) => c.status === 'lost' || c.status === 409);
    if (open.length === 0 && (await store.checkIntegrity(new Date())).ok) break;
    assert.ok(attempt < 200, 'the unanswered calls get an answer and the killed instances are settled');
    for (const logical of open) await call(server, logical);
    await new Promise((r) => setTimeout(r, 250));
  }
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);

  const integrity = await store.checkIntegrity(new Date());
  assert.equal(integrity.ok, true, JSON.stringify(integrity));
  const ledger = await store.ledger(record.id);
  const netByRequest = new Map<string, number>();
  // every attempt of a logical call sends its X-Request-Id: the ledger keeps it beside the service's own id
  for (const entry of ledger)
    if (entry.clientRequestId)
      netByRequest.set(entry.clientRequestId, (netByRequest.get(entry.clientRequestId) ?? 0) + entry.delta);
  let succeeded = 0;
  for (const logical of calls.values()) {
    const net = netByRequest.get(logical.id) ?? 0;
    if (logical.status === 200) {
      succeeded++;
      assert.equal(net, -logical.stops, `${logical.id} got 200 and must be debited exactly once`);
      assert.equal(
        ledger.filter((e) => e.clientRequestId === logical.id && e.reason === 'debit').length -
          ledger.filter((e) => e.clientRequestId === logical.id && e.reason === 'refund').length,
        1,
      );
    } else {
      assert.equal(net, 0, `${logical.id} ended with ${logical.status} and must not be debited`);
    }
  }
  const balance = (await store.findKeyByHash(hashApiKey(key)))!.balance;
  assert.equal(
    balance,
    1_000_000 - [...calls.values()].filter((c) => c.status === 200).reduce((s, c) => s + c.stops, 0),
  );
  await store.close();
  assert.ok(succeeded > 0, 'some calls succeeded');
  assert.ok(killedMidFlight > 0, 'the kills interrupted calls in flight');
  console.log(
    `# crash rounds: ${ROUNDS}, logical calls: ${calls.size}, succeeded: ${succeeded}, interrupted by SIGKILL: ${killedMidFlight}`,
  );
});
