// Runs in a worker thread: opens its own connection to the database and debits once,
// after every worker has reached the barrier, so the debits really race.
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from '../../src/store/sqlite.js';

const { path, keyId, stops, barrier, workers } = workerData as {
  path: string;
  keyId: number;
  stops: number;
  barrier: SharedArrayBuffer;
  workers: number;
};
const store = new SqliteStore(path, { busyTimeoutMs: 10_000 });
const counter = new Int32Array(barrier);
Atomics.add(counter, 0, 1);
while (Atomics.load(counter, 0) < workers) Atomics.wait(counter, 0, Atomics.load(counter, 0), 5);
const outcome = await store.debit(keyId, stops, `worker-${String(workerData.index)}`, new Date(), {
  untilMs: Date.now() + 60_000,
  owner: 'worker',
});
await store.close();
parentPort!.postMessage(outcome.ok);
