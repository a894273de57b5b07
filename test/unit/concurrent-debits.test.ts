import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite.js';
import { tempDir } from '../helpers/server.js';
import { tsWorker } from '../helpers/ts-worker.js';

test('50 stops and 10 parallel 10-stop debits from 10 connections: exactly 5 succeed, balance 0, ledger sums to it', async () => {
  const path = join(tempDir(), 'race.db');
  const store = new SqliteStore(path);
  const key = await store.createKey({
    kind: 'live',
    keyHash: 'race',
    last4: 'race',
    email: null,
    initialStops: 50,
    reason: 'admin_credit',
    now: new Date(),
  });
  const barrier = new SharedArrayBuffer(4);
  const workers = 10;
  const results = await Promise.all(
    Array.from(
      { length: workers },
      (_, index) =>
        new Promise<boolean>((resolve, reject) => {
          const worker = tsWorker(new URL('../workers/debit-worker.ts', import.meta.url), {
            workerData: { path, keyId: key.id, stops: 10, barrier, workers, index },
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  assert.equal(results.filter(Boolean).length, 5);
  const after = await store.findKeyByHash('race');
  assert.equal(after?.balance, 0);
  const ledger = await store.ledger(key.id);
  assert.equal(
    ledger.reduce((s, e) => s + e.delta, 0),
    0,
  );
  assert.equal(ledger.filter((e) => e.reason === 'debit').length, 5);
  await store.close();
});
