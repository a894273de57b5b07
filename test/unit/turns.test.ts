/**
 * src/http/turns.ts: steps that take their own turn of the event loop run one per turn, with what else the
 * loop has (here, an immediate queued from outside) between them.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ownTurn } from '../../src/http/turns.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('each waiter gets a turn of its own, in order', async () => {
  const order: string[] = [];
  for (const name of ['a', 'b', 'c']) void ownTurn().then(() => order.push(name));
  await turn();
  assert.deepEqual(order, ['a'], 'one per turn, not all in the first');
  await turn();
  assert.deepEqual(order, ['a', 'b']);
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c']);
  await turn();
  assert.deepEqual(order, ['a', 'b', 'c'], 'nothing left scheduled');
});
