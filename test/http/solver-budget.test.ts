/**
 * The one budget rule of optimize and plans (src/calls/budget.ts), seen from the solver: each endpoint's
 * budget whole while the request deadline is far, less when geocoding and the matrix ate into the deadline.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { RouteSolver } from '../../src/api/optimize/pipeline.js';
import type { PlanSolver } from '../../src/api/plans/pipeline.js';
import { SolverPool } from '../../src/solver/index.js';
import { startFakeOsrm } from '../fakes/osrm.js';
import { PARIS_START, coordinateStops, startTestServer } from '../helpers/server.js';

/** The real pool, with the time limit of every solve written down. */
function spies(pool: SolverPool, limits: number[]): { solver: RouteSolver; fleetSolver: PlanSolver } {
  return {
    solver: {
      solve: (problem, options) => {
        limits.push(options?.timeLimitMs ?? NaN);
        return pool.solve(problem, options);
      },
    },
    fleetSolver: {
      solveFleet: (problem, options) => {
        limits.push(options?.timeLimitMs ?? NaN);
        return pool.solveFleet(problem, options);
      },
    },
  };
}

test('optimize gets SOLVER_TIME_LIMIT_MS and a plan its per-stop budget, whole, while the deadline is far', async () => {
  const pool = new SolverPool({ size: 1 });
  const limits: number[] = [];
  const server = await startTestServer({
    env: { SOLVER_TIME_LIMIT_MS: '300', PLANS_SOLVER_MS_PER_STOP: '70' },
    overrides: spies(pool, limits),
  });
  try {
    const key = await server.createKey('test');
    assert.equal(
      (
        await server.request('POST', '/api/v1/optimize', {
          key,
          body: { start: PARIS_START, stops: coordinateStops(4) },
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await server.request('POST', '/api/v1/plans', {
          key,
          body: { vehicles: [{ id: 'v', start: PARIS_START }], stops: coordinateStops(4) },
        })
      ).status,
      200,
    );
    assert.deepEqual(limits, [300, 280]);
  } finally {
    await server.close();
    await pool.close();
  }
});

test('a plan whose matrix ate most of REQUEST_DEADLINE_MS gets what is left, less a twentieth of its budget', async () => {
  const osrm = await startFakeOsrm({ mode: { kind: 'delay', ms: 1200 } });
  const pool = new SolverPool({ size: 1 });
  const limits: number[] = [];
  const env = {
    ROUTING: 'osrm',
    OSRM_URL: osrm.url,
    REQUEST_DEADLINE_MS: '3000',
    PLANS_SOLVER_MS_PER_STOP: '1000',
    PLANS_SOLVER_TIME_LIMIT_MS: '4000',
  };
  const server = await startTestServer({ env, overrides: spies(pool, limits) });
  try {
    const key = await server.createKey('live', 10);
    const res = await server.request('POST', '/api/v1/plans', {
      key,
      body: { vehicles: [{ id: 'v', start: PARIS_START }], stops: coordinateStops(4) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // budget 4000 ms; 3000 − (at least 1200 for the matrix) − 200 leaves at most 1600, never less than 400
    assert.equal(limits.length, 1);
    assert.ok(limits[0]! >= 400 && limits[0]! <= 1600, `time limit ${limits[0]}`);
  } finally {
    await server.close();
    await pool.close();
    await osrm.close();
  }
});
