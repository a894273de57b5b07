import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { collectGarbage } from '../../src/solver/collect-garbage.js';

test('a full collection can be asked for at run time, and frees what nothing holds', async () => {
  const ref = new WeakRef(new Array(1e5).fill(0));
  await new Promise((resolve) => setImmediate(resolve)); // a WeakRef's target lives at least to the end of its job
  assert.equal(collectGarbage(), true, 'this runtime allows it');
  assert.equal(ref.deref() === undefined, true, 'the array was collected');
});
