import { test } from 'node:test';
import assert from 'node:assert/strict';
import { colocatedGroups, inputOrderAtSamePlace } from '../../src/api/optimize/colocated.js';

const A = { latitude: 48.855648, longitude: 2.358457 };
const A2 = { latitude: 48.855670, longitude: 2.358480 }; // 3 m from A
const B = { latitude: 48.855313, longitude: 2.365920 };
const C = { latitude: 48.853910, longitude: 2.366720 };

test('groups: stops within 5 m of one another, transitively; lone stops are not groups', () => {
  assert.deepEqual(colocatedGroups([A, B, A2, C, A]), [[0, 2, 4]]);
  assert.deepEqual(colocatedGroups([A, B, C]), []);
  assert.deepEqual(colocatedGroups([A, B, B, A]), [[0, 3], [1, 2]]);
});

test('stops at the same place are put back in input order, in the positions the solver gave them', () => {
  // solver: 3(A) 1(B) 0(A) 2(C) 4(B)
  const points = [A, B, C, A, B];
  assert.deepEqual(inputOrderAtSamePlace([3, 1, 0, 2, 4], points, () => 0), [0, 1, 3, 2, 4]);
  assert.deepEqual(inputOrderAtSamePlace([4, 2, 3, 1, 0], points, () => 0), [1, 2, 0, 4, 3]);
  assert.deepEqual(inputOrderAtSamePlace([2, 1, 0], [A, B, C], () => 0), [2, 1, 0], 'nothing shared: the solver order stands');
});

test('a group keeps the solver\'s order when input order would make the route later', () => {
  const points = [A, A, B, B];
  // order [1,0,3,2]: group A back to [0,1] costs lateness, group B back to [2,3] does not
  const lateness = (order: readonly number[]) => (order.indexOf(0) < order.indexOf(1) ? 60 : 0);
  assert.deepEqual(inputOrderAtSamePlace([1, 0, 3, 2], points, lateness), [1, 0, 2, 3]);
});
