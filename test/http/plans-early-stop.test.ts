/**
 * Trivial and saturated plans end early (solver-rs/src/fleet/bound.rs): every stop at one place, or a fleet
 * that is full, answers after a handful of the solver's iterations, not at the end of its budget. Read from
 * the solver's own report (iterations), not from the wall clock.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { PlanSolver } from '../../src/api/plans/pipeline.js';
import { SolverPool } from '../../src/solver/index.js';
import type { FleetResult } from '../../src/solver/fleet-types.js';
import { PARIS_START, coordinateStops, startTestServer } from '../helpers/server.js';

/** The real pool, with each plan's time limit and the solver's report written down. */
function recording(pool: SolverPool, solves: Array<{ limitMs: number; result: FleetResult }>): PlanSolver {
  return {
    solveFleet: async (problem, options) => {
      const result = await pool.solveFleet(problem, options);
      solves.push({ limitMs: options?.timeLimitMs ?? NaN, result });
      return result;
    },
  };
}

test('every stop at one place, or a full fleet, ends the search long before the budget', async () => {
  const pool = new SolverPool({ size: 1 });
  const solves: Array<{ limitMs: number; result: FleetResult }> = [];
  // 20 ms a stop: 300 stops get a 6 s budget, 120 stops 2.4 s
  const server = await startTestServer({
    env: { PLANS_SOLVER_MS_PER_STOP: '20' },
    overrides: { fleetSolver: recording(pool, solves) },
  });
  try {
    const key = await server.createKey('live', 1000);
    const onePlace = coordinateStops(300).map((s) => ({ ...s, latitude: 48.87, longitude: 2.33, serviceSeconds: 60 }));
    const vans = (count: number, extra: object = {}) =>
      Array.from({ length: count }, (_, v) => ({ id: `van-${v}`, start: PARIS_START, end: PARIS_START, ...extra }));
    const a = await server.request('POST', '/api/v1/plans', { key, body: { vehicles: vans(3), stops: onePlace } });
    assert.equal(a.status, 200);
    assert.equal(a.body.unassigned.length, 0);
    // five vans of one stop each, 120 stops spread over Paris: 115 cannot fit anywhere
    const b = await server.request('POST', '/api/v1/plans', {
      key,
      body: { vehicles: vans(5, { maxStops: 1 }), stops: coordinateStops(120) },
    });
    assert.equal(b.status, 200);
    assert.equal(b.body.unassigned.length, 115);
    const [one, full] = solves;
    assert.equal(one!.limitMs, 6000);
    assert.equal(one!.result.iterations, 0, 'the construction reaches the bound: no iteration');
    assert.equal(full!.limitMs, 2400);
    // the service's stall count for 120 stops is 1440; for the 5 stops the fleet can hold it is 2 (fleet phase
    // and annealing); a run to the budget would make thousands of iterations
    assert.ok(full!.result.iterations < 50, `${full!.result.iterations} iterations`);
  } finally {
    await server.close();
    await pool.close();
  }
});
