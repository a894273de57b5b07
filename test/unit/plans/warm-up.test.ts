/**
 * src/api/plans/warm-up.ts, the solver's start-up warm-up: it runs a real fleet search (several vans, windows,
 * demands: the engine the big plans use, not the one-route path) for a fixed number of iterations on the pool,
 * and every stop of its synthetic day is planned.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { warmUpPlanSolver } from '../../../src/api/plans/warm-up.js';
import type { PlanSolver } from '../../../src/api/plans/pipeline.js';
import { SolverPool } from '../../../src/solver/index.js';
import type { FleetOptions, FleetProblem, FleetResult } from '../../../src/solver/fleet-types.js';

test('the solver warm-up runs a fixed-iteration fleet search of a windowed many-van day on the pool', async () => {
  const pool = new SolverPool({ size: 1 });
  const seen: Array<{ problem: FleetProblem; options: FleetOptions | undefined; result: FleetResult }> = [];
  const recording: PlanSolver = {
    async solveFleet(problem, options) {
      const result = await pool.solveFleet(problem, options);
      seen.push({ problem, options, result });
      return result;
    },
  };
  try {
    assert.ok((await warmUpPlanSolver(recording)) > 0);
    assert.equal(seen.length, 1);
    const { problem, options, result } = seen[0]!;
    assert.ok(problem.vehicles.length > 1, 'several vans: the fleet engine, not the one-route path');
    assert.ok(
      problem.jobs.some((j) => j.windows !== undefined),
      'some stops have windows',
    );
    assert.ok(
      problem.jobs.some((j) => j.ready !== undefined),
      'some stops have a notBefore',
    );
    assert.ok(
      problem.jobs.some((j) => j.deadline !== undefined),
      'some stops have deadlines',
    );
    assert.ok(options?.maxIterations !== undefined && options.maxIterations > 0, 'a fixed number of iterations');
    assert.equal(result.iterations, options.maxIterations);
    assert.deepEqual(result.unassigned, [], 'every stop of the synthetic day is planned');
    assert.ok(result.routes.length > 1, 'the day needs more than one van');
  } finally {
    await pool.close();
  }
});

test('a closed pool makes the warm-up reject with its SolverError (main.ts ignores code closed)', async () => {
  const pool = new SolverPool({ size: 1 });
  await pool.close();
  await assert.rejects(warmUpPlanSolver(pool), { name: 'SolverError', code: 'closed' });
});
