/**
 * src/api/plans/route-matrix.ts: a route's distances as a view onto the call's matrix read the same cells as the
 * copied sub-matrix they replace; and the start-up warm-up runs the whole main-thread path of a plan.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { routeMatrixView } from '../../../src/api/plans/route-matrix.js';
import { warmUpPlans } from '../../../src/api/plans/warm-up.js';

test('the view reads every cell of the route sub-matrix, and nothing past it', () => {
  const size = 6;
  const cells = Array.from({ length: size }, (_, i) => Array.from({ length: size }, (_, j) => i * 10 + j));
  const nodes = [4, 0, 2, 2, 5];
  const view = routeMatrixView(nodes, cells);
  assert.equal(view.length, nodes.length);
  nodes.forEach((from, a) => {
    assert.equal(view[a]!.length, nodes.length);
    nodes.forEach((to, b) => assert.equal(view[a]![b], cells[from]![to]));
    assert.equal(view[a]![nodes.length], undefined);
  });
});

test('the warm-up runs the plan path (validation, layout, places, matrix, problem, answer) without error', async () => {
  assert.ok((await warmUpPlans()) >= 0);
});
