/**
 * src/http/turns.ts: steps that wait for a turn run in later turns of the event loop, sharing one only while
 * it has run less than its budget, with what else the loop has (here, an immediate queued from outside)
 * between the turns.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ownTurn } from '../../src/http/turns.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test('quick steps share a turn; a long one ends it, and the rest wait for the next', async () => {
  const order: string[] = [];
  for (const name of ['a', 'b', 'c', 'd'])
    void ownTurn().then(() => {
      order.push(name);
      if (name === 'b') busy(15);
    });
  assert.deepEqual(order, [], 'never in the caller’s turn');
  await turn();
  assert.deepEqual(order, ['a', 'b'], 'a and b in the first turn; b ran past its budget');
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c', 'd']);
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c', 'd'], 'nothing left scheduled');
});
