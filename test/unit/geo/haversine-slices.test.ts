/**
 * The built-in model computes a big matrix in slices, yielding to the event loop between them: other
 * requests are served while a 1000-point matrix is built, and an abort stops it between slices.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { HaversineProvider } from '../../../src/geo/index.js';
import { parisStops } from '../../../scripts/lib/paris-stops.js';

const points = parisStops(1000, 3);

test('a 1000-point matrix lets other callbacks run before it is done', async () => {
  let ranDuring = false;
  const matrix = new HaversineProvider().matrix(points, { avoidTolls: false }).then((m) => {
    assert.equal(m.durationsS.length, 1000);
    return ranDuring;
  });
  setImmediate(() => {
    ranDuring = true;
  });
  assert.equal(await matrix, true);
});

test('an abort while the matrix is being built stops it', async () => {
  const controller = new AbortController();
  const matrix = new HaversineProvider().matrix(points, { avoidTolls: false, signal: controller.signal });
  setImmediate(() => controller.abort());
  await assert.rejects(matrix, /aborted/);
});
