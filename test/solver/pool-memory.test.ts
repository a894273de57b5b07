/**
 * WebAssembly memory only grows: a worker whose instance grew for a big problem drops it after the task,
 * so a flood of big plans leaves no worker holding its peak (src/solver/worker.ts). Small tasks keep theirs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolverPool } from '../../src/solver/index.js';
import { randomFleet } from './fleet-helpers.js';

test('a worker keeps its instance after small solves and takes a fresh one after a big one', async () => {
  const pool = new SolverPool({ size: 1 });
  try {
    assert.equal(await pool.instancesForTest(), 1);
    await pool.solveFleet(randomFleet(1, 50, 3), { timeLimitMs: 0, maxIterations: 5 });
    assert.equal(await pool.instancesForTest(), 1, 'a small problem leaves the instance small: it is kept');
    // 2200 jobs: a 19 MB matrix, past the 16 MB kept (1000 jobs now take about 8 MB: one i32 matrix, no copy)
    const big = await pool.solveFleet(randomFleet(2, 2200, 50), { timeLimitMs: 0, maxIterations: 1 });
    assert.ok(big.routes.length > 0);
    assert.equal(await pool.instancesForTest(), 2, 'the instance that grew for 2200 jobs was dropped');
  } finally {
    await pool.close();
  }
});
