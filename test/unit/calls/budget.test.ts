import { test } from 'node:test';
import assert from 'node:assert/strict';
import { solverTimeLimitMs } from '../../../src/calls/budget.js';

test('the solver gets its whole budget while the request deadline is far', () => {
  assert.equal(solverTimeLimitMs(250, 29_900), 250, 'optimize: SOLVER_TIME_LIMIT_MS');
  assert.equal(solverTimeLimitMs(10_000, 29_000), 10_000, 'a 1000-stop plan');
});

test('near the deadline: what is left of it less a twentieth of the budget, never less than a tenth', () => {
  assert.equal(solverTimeLimitMs(10_000, 5_000), 4_500);
  assert.equal(solverTimeLimitMs(10_000, 500), 1_000);
  assert.equal(solverTimeLimitMs(250, -10), 25);
});
