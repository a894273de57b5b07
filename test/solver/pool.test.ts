import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { SolverError, SolverPool, loadSolver } from '../../src/solver/index.js';
import { ROOT, evaluate, isPermutation, randomProblem } from './helpers.js';

describe('SolverPool', () => {
  it('runs concurrent solves and matches the in-thread solver', async () => {
    const pool = new SolverPool({ size: 2 });
    try {
      const problems = Array.from({ length: 8 }, (_, k) =>
        randomProblem(300 + k, 25 + 5 * k, (['open', 'closed', 'separate'] as const)[k % 3], {
          deadlines: k % 2 === 0,
          service: true,
        }),
      );
      const opts = { seed: 5, maxIterations: 150, timeLimitMs: 0 };
      const results = await Promise.all(problems.map((p) => pool.solve(p, opts)));
      const local = loadSolver();
      results.forEach((r, k) => {
        const n = problems[k].serviceS.length;
        assert.ok(isPermutation(r.order, n));
        assert.deepEqual({ latenessS: r.latenessS, durationS: r.durationS }, evaluate(problems[k], r.order));
        const inThread = local.solve(problems[k], opts);
        assert.deepEqual(r.order, inThread.order, `problem ${k}: pool and in-thread differ`);
        assert.ok(r.times, `problem ${k}: the pool passes the stops' times on`);
        assert.deepEqual(r.times, inThread.times, `problem ${k}: times`);
        assert.ok(r.solveMs >= 0);
        assert.equal(r.report, undefined);
      });
      // the report crosses the thread boundary when asked for
      const withReport = await pool.solve(problems[7], { ...opts, report: true });
      assert.deepEqual(withReport.order, results[7].order);
      assert.equal(withReport.report?.operators.kick.tried, withReport.iterations);
      assert.equal(withReport.report?.improvements.at(-1)?.durationS, withReport.durationS);
    } finally {
      await pool.close();
    }
  });

  it('reports queue depth and rejects when the queue is full', async () => {
    const pool = new SolverPool({ size: 1, maxQueue: 2 });
    try {
      const p = randomProblem(1, 120, 'closed');
      const slow = { timeLimitMs: 300, stallIterations: 0xffffffff, seed: 1 };
      assert.equal(pool.accepting(), true);
      const running = [pool.solve(p, slow), pool.solve(p, slow), pool.solve(p, slow)];
      // one running, two waiting
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(pool.queueDepth(), 2);
      assert.equal(pool.accepting(), false, 'readiness: a full queue takes no more work');
      await assert.rejects(pool.solve(p, slow), (e: unknown) => e instanceof SolverError && e.code === 'queue_full');
      const done = await Promise.all(running);
      assert.equal(done.length, 3);
      assert.equal(pool.queueDepth(), 0);
      assert.equal(pool.accepting(), true);
    } finally {
      await pool.close();
    }
  });

  it('maxQueue 0 accepts one solve per worker and rejects the rest', async () => {
    const pool = new SolverPool({ size: 1, maxQueue: 0 });
    try {
      const p = randomProblem(7, 100, 'open');
      const first = pool.solve(p, { timeLimitMs: 200, stallIterations: 0xffffffff });
      await assert.rejects(pool.solve(p), (e: unknown) => e instanceof SolverError && e.code === 'queue_full');
      assert.ok(isPermutation((await first).order, 100));
      assert.ok(isPermutation((await pool.solve(p, { maxIterations: 10 })).order, 100));
    } finally {
      await pool.close();
    }
  });

  it('an aborted solve rejects with "aborted" and the pool keeps working', async () => {
    const pool = new SolverPool({ size: 1 });
    try {
      const p = randomProblem(8, 150, 'closed');
      const ac = new AbortController();
      const running = pool.solve(p, { timeLimitMs: 5000, stallIterations: 0xffffffff, signal: ac.signal });
      const waiting = pool.solve(p, { timeLimitMs: 5000, signal: ac.signal });
      setTimeout(() => ac.abort(), 100);
      await assert.rejects(running, (e: unknown) => e instanceof SolverError && e.code === 'aborted');
      await assert.rejects(waiting, (e: unknown) => e instanceof SolverError && e.code === 'aborted');
      const r = await pool.solve(p, { maxIterations: 20 });
      assert.ok(isPermutation(r.order, 150));
      await assert.rejects(
        pool.solve(p, { signal: AbortSignal.abort() }),
        (e: unknown) => e instanceof SolverError && e.code === 'aborted',
      );
    } finally {
      await pool.close();
    }
  });

  it('turns a trap into SolverError("trap") and recovers with a fresh instance', async () => {
    const pool = new SolverPool({ size: 1 });
    try {
      const p = randomProblem(2, 30, 'open', { deadlines: true, service: true });
      const before = await pool.solve(p, { seed: 1, maxIterations: 100 });
      assert.equal(await pool.instancesForTest(), 1);
      await assert.rejects(pool.trapForTest(), (e: unknown) => e instanceof SolverError && e.code === 'trap');
      const afterTrap = await pool.solve(p, { seed: 1, maxIterations: 100 });
      assert.deepEqual(afterTrap.order, before.order);
      assert.equal(await pool.instancesForTest(), 2, 'the worker should have re-instantiated the module');
    } finally {
      await pool.close();
    }
  });

  it('uses the default time limit and stops small problems early', async () => {
    const pool = new SolverPool({ size: 1, defaultTimeLimitMs: 5000 });
    try {
      // 10 stops: exact; 15 stops: ILS ends on its stall limit long before 5 s
      const small = await pool.solve(randomProblem(3, 10, 'closed', { deadlines: true, service: true }));
      assert.equal(small.iterations, 0);
      const r = await pool.solve(randomProblem(4, 15, 'closed'));
      assert.ok(r.iterations > 0 && r.solveMs < 4000, `15 stops took ${r.solveMs} ms`);
    } finally {
      await pool.close();
    }
  });

  it('rejects after close and fails to construct on a bad module path', async () => {
    const pool = new SolverPool({ size: 1 });
    await pool.close();
    await assert.rejects(
      pool.solve(randomProblem(5, 5, 'open')),
      (e: unknown) => e instanceof SolverError && e.code === 'closed',
    );
    assert.throws(
      () => new SolverPool({ wasmPath: join(ROOT, 'nope.wasm') }),
      (e: unknown) => e instanceof SolverError && e.code === 'load_failed',
    );
    assert.throws(
      () => new SolverPool({ wasmPath: join(ROOT, 'package.json') }),
      (e: unknown) => e instanceof SolverError && e.code === 'load_failed',
    );
  });
});
