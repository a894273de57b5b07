/**
 * src/http/turns.ts: steps that wait for a turn run in later turns of the event loop, sharing one only while
 * it has run less than its budget, with what else the loop has (here, an immediate queued from outside)
 * between the turns. The clock is the test's (performance.now mocked): a loaded machine's preemptions would
 * otherwise spend a turn's 10 ms before its first step.
 */
import { strict as assert } from 'node:assert';
import { mock, test } from 'node:test';
import { ownTurn } from '../../src/http/turns.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('quick steps share a turn; a long one ends it, and the rest wait for the next', async (t) => {
  let now = 0;
  t.after(() => mock.restoreAll());
  mock.method(performance, 'now', () => now);
  const order: string[] = [];
  for (const name of ['a', 'b', 'c', 'd'])
    void ownTurn().then(() => {
      order.push(name);
      if (name === 'b') now += 15;
    });
  assert.deepEqual(order, [], 'never in the caller’s turn');
  await turn();
  assert.deepEqual(order, ['a', 'b'], 'a and b in the first turn; b ran past its budget');
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c', 'd']);
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c', 'd'], 'nothing left scheduled');
});

test('a turn that starts past its budget still runs its first step', async (t) => {
  let now = 0;
  t.after(() => mock.restoreAll());
  // every reading of the clock is 20 ms after the last: each turn is over budget as soon as it starts
  mock.method(performance, 'now', () => (now += 20));
  const order: string[] = [];
  for (const name of ['a', 'b', 'c']) void ownTurn().then(() => order.push(name));
  await turn();
  assert.deepEqual(order, ['a'], 'one step in the first turn');
  await turn();
  assert.deepEqual(order, ['a', 'b']);
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c']);
});
