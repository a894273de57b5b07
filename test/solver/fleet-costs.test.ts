/**
 * Vehicle costs and the balance term through the WebAssembly module (src/solver/fleet-costs.ts): a problem without
 * them sends no section (its plan is the one an older module finds), the sections reach the solver (the cheaper
 * vehicle is used, balance evens the routes), and bad values are refused before the call.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { extraSections, flattenFleet } from '../../src/solver/fleet-abi.js';
import { costSections } from '../../src/solver/fleet-costs.js';
import { SERVICE_OBJECTIVE, SolverError, Status, loadSolver, type FleetProblem } from '../../src/solver/index.js';
import { EXTRA } from '../../src/solver/abi-constants.generated.js';
import { randomFleet } from './fleet-helpers.js';

/** Eight jobs at one place 100 s away, service 60 each; two vans of capacity 6 (both are needed). */
const eightAtOnePlace = (extra: Partial<FleetProblem> = {}): FleetProblem => ({
  locations: 2,
  travel: Int32Array.from([0, 100, 100, 0]),
  vehicles: [0, 1].map(() => ({ start: 0, end: 0, capacity: [6] })),
  jobs: Array.from({ length: 8 }, () => ({ location: 1, service: 60, demand: [1] })),
  ...extra,
});

describe('fleet costs and balance', () => {
  const solver = loadSolver();
  const options = { seed: 1, maxIterations: 200, timeLimitMs: 0 };

  it('a problem without costs or balance sends no section of theirs', () => {
    const p = randomFleet(1, 20, 3);
    assert.deepEqual(costSections(p), []);
    const flat = extraSections(p);
    for (const tag of [EXTRA.VEHICLE_COSTS, EXTRA.BALANCE]) assert.ok(flat === null || !flat.includes(tag));
  });

  it('the sections carry each vehicle its costs and the objective its balance', () => {
    const p = eightAtOnePlace({
      vehicles: [
        { start: 0, end: 0, costs: { fixed: 5 } },
        { start: 0, end: 0 },
      ],
      objective: { ...SERVICE_OBJECTIVE, balance: { stops: 3, duration: 2, durationScale: 7 } },
    });
    assert.deepEqual(costSections(p), [EXTRA.VEHICLE_COSTS, 6, 5, 0, 0, 0, 0, 0, EXTRA.BALANCE, 3, 3, 2, 7]);
    assert.ok(flattenFleet(p).extra !== null);
  });

  it('balance evens the two routes the capacities need (6 + 2 otherwise)', () => {
    const sizes = (p: FleetProblem) =>
      solver
        .solveFleet(p, options)
        .routes.map((r) => r.jobs.length)
        .sort();
    assert.notDeepEqual(sizes(eightAtOnePlace()), [4, 4]);
    const balance = { stops: 30 * SERVICE_OBJECTIVE.durationWeight, duration: 0, durationScale: 1 };
    assert.deepEqual(sizes(eightAtOnePlace({ objective: { ...SERVICE_OBJECTIVE, balance } })), [4, 4]);
  });

  it('the vehicle cheaper by the second takes the day', () => {
    for (const cheap of [0, 1]) {
      const p = eightAtOnePlace({
        vehicles: [0, 1].map((v) => ({
          start: 0,
          end: 0,
          capacity: [8],
          costs: { fixed: 1000, perDuration: v === cheap ? 1 : 9 },
        })),
        objective: { vehicleCost: 0, durationWeight: 1, distanceWeight: 0 },
      });
      const plan = solver.solveFleet(p, options);
      assert.deepEqual(
        plan.routes.map((r) => [r.vehicle, r.jobs.length]),
        [[cheap, 8]],
      );
      // 1000 + rate × (100 + 8 × 60 + 100) + the tie-break second
      assert.equal(plan.cost.main, 1000 + 2 * 680);
    }
  });

  it('refuses a negative or fractional cost and a balance scale below 1 before the call', () => {
    const bad: FleetProblem[] = [
      eightAtOnePlace({ vehicles: [{ start: 0, costs: { fixed: -1 } }] }),
      eightAtOnePlace({ vehicles: [{ start: 0, costs: { perDistance: 0.5 } }] }),
      eightAtOnePlace({ objective: { ...SERVICE_OBJECTIVE, balance: { stops: 1, duration: 0, durationScale: 0 } } }),
    ];
    for (const p of bad)
      assert.throws(
        () => solver.solveFleet(p, options),
        (e: unknown) => e instanceof SolverError && e.status === Status.BAD_NUMBER,
      );
  });
});
