// Runs in a worker thread: opens its own connection (SQLite) or pool (PostgreSQL) and
// debits once, after every worker has reached the barrier, so the debits really race.
import { parentPort, workerData } from 'node:worker_threads';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';

const { location, keyId, stops, barrier, workers, index } = workerData as {
  location: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };
  keyId: number;
  stops: number;
  barrier: SharedArrayBuffer;
  workers: number;
  index: number;
};
const store: Store =
  location.kind === 'sqlite'
    ? new SqliteStore(location.path, { busyTimeoutMs: 10_000 })
    : await PostgresStore.open(location.url, { poolSize: 1 });
await store.ping(); // connected before the barrier
const counter = new Int32Array(barrier);
Atomics.add(counter, 0, 1);
while (Atomics.load(counter, 0) < workers) Atomics.wait(counter, 0, Atomics.load(counter, 0), 5);
const outcome = await store.debit(keyId, stops, `worker-${index}`, new Date(), {
  untilMs: Date.now() + 60_000,
  owner: 'worker',
});
await store.close();
parentPort!.postMessage(outcome.ok);
