/**
 * The real pool with its lanes: a short solve is served while big ones hold and wait for the workers.
 * Order only: the big solves run to their time limit (no convergence stop), the small one is tiny.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolverError, SolverPool } from '../../src/solver/index.js';
import { withLaneTicket } from '../../src/solver/ticket-scope.js';
import { isPermutation, randomProblem } from './helpers.js';

test('a small solve is served while two big ones run and wait', async () => {
  const pool = new SolverPool({ size: 2, smallWorkers: 1, smallSolveMs: 1000 });
  const ac = new AbortController();
  try {
    const big = randomProblem(3, 150, 'closed');
    const slow = { timeLimitMs: 20_000, stallIterations: 0xffffffff, signal: ac.signal };
    const settled: string[] = [];
    const bigs = [pool.solve(big, slow), pool.solve(big, slow)].map((p, i) =>
      p.then(
        () => settled.push(`big${i}`),
        (e: unknown) => settled.push(e instanceof SolverError ? e.code : String(e)),
      ),
    );
    assert.equal(pool.queueDepth(), 1, 'one big solve runs, the other waits: the second worker is kept for small work');
    const small = await pool.solve(randomProblem(4, 8, 'open'), { timeLimitMs: 100 });
    assert.ok(isPermutation(small.order, 8));
    assert.deepEqual(settled, [], 'the small solve was answered while both big ones were still in the pool');
    ac.abort();
    await Promise.all(bigs);
    assert.deepEqual(settled, ['aborted', 'aborted']);
  } finally {
    await pool.close();
  }
});

test('solves of one call share its lane ticket: the key is the call’s', async () => {
  const pool = new SolverPool({ size: 1 });
  try {
    const ticket = pool.lanes.reserve('key-7', 500);
    assert.equal(pool.lanes.keyCostInFlightMs('key-7'), 500);
    const r = await withLaneTicket(ticket, () => pool.solve(randomProblem(5, 6, 'open'), { timeLimitMs: 50 }));
    assert.ok(isPermutation(r.order, 6));
    assert.equal(pool.lanes.keyCostInFlightMs('key-7'), 0, 'the solve is done; the call still holds its place');
    assert.equal(pool.lanes.queued(), 0);
    ticket.release();
  } finally {
    await pool.close();
  }
});
