import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readFleetOut } from '../../src/solver/fleet-abi.js';
import {
  DISTANCE_OBJECTIVE,
  NO_DEADLINE,
  SolverError,
  SolverPool,
  Status,
  loadSolver,
  serviceStallIterations,
  type FleetProblem,
  type FleetResult,
} from '../../src/solver/index.js';
import { checkPlan, modelOf } from '../../scripts/lib/fleet-check.js';
import { checkSolomon, customerRoutes, parseSolomon, solomonProblem } from '../../scripts/lib/solomon.js';
import { ROOT, findCargo } from './helpers.js';
import { solverBuildFile } from '../helpers/solver-builds.js';
import { randomFleet, runNativeFleet, withShipments, writeFleetFile } from './fleet-helpers.js';

const SOLOMON = ['C101', 'C201', 'R101', 'R202', 'RC101', 'RC208'];
const solomon = (name: string) => parseSolomon(readFileSync(join(ROOT, 'data/solomon', `${name}.txt`), 'utf8'));
const RANDOM: Array<[number, number, number]> = [
  [1, 30, 3],
  [2, 60, 5],
  [3, 120, 8],
  [4, 12, 2],
];

/** The plan checker's verdict on a WASM answer, compared with what the solver reported. */
function assertConsistent(p: FleetProblem, r: FleetResult, label: string): void {
  const sims = checkPlan(
    modelOf(p),
    r.routes,
    r.unassigned.map((u) => u.job),
  );
  r.routes.forEach((route, k) => {
    assert.deepEqual(route.starts, sims[k].starts, `${label}: vehicle ${route.vehicle} schedule`);
    assert.equal(route.duration, sims[k].duration, `${label}: vehicle ${route.vehicle} duration`);
    assert.equal(route.distance, sims[k].distance, `${label}: vehicle ${route.vehicle} distance`);
    assert.equal(route.lateness, sims[k].lateness, `${label}: vehicle ${route.vehicle} lateness`);
    assert.ok(route.jobs.length > 0, `${label}: a route of an unused vehicle`);
  });
  const sum = (f: (x: FleetResult['routes'][number]) => number) => r.routes.reduce((s, x) => s + f(x), 0);
  assert.deepEqual(
    [r.cost.unassigned, r.cost.vehicles, r.cost.duration, r.cost.distance, r.cost.lateness],
    [r.unassigned.length, r.routes.length, sum((x) => x.duration), sum((x) => x.distance), sum((x) => x.lateness)],
    `${label}: cost parts`,
  );
  const ob = p.objective!;
  assert.equal(
    r.cost.main,
    ob.vehicleCost * r.cost.vehicles + ob.durationWeight * r.cost.duration + ob.distanceWeight * r.cost.distance,
    `${label}: main cost`,
  );
}

describe('fleet solver (WASM)', () => {
  const solver = loadSolver();

  it('the service objective does not drive around instead of waiting: no route of the plan can drive less at the same duration', () => {
    // the console's sample day: two vans of 12 parcels from one depot, 20 parcels, two stops that open late;
    // the vans wait for those, so many orders share the best duration and only the driving term tells them apart
    const points = [
      [48.8566, 2.3522],
      [48.8738, 2.295],
      [48.8867, 2.3431],
      [48.8462, 2.3371],
      [48.853, 2.3499],
      [48.8606, 2.3376],
      [48.8412, 2.321],
      [48.8796, 2.373],
      [48.8353, 2.3725],
      [48.865, 2.3817],
      [48.847, 2.395],
    ] as const;
    const n = points.length;
    const metres = (a: readonly number[], b: readonly number[]) =>
      Math.hypot((a[0]! - b[0]!) * 111_320, (a[1]! - b[1]!) * 111_320 * Math.cos((48.85 * Math.PI) / 180));
    const travel = new Int32Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) travel[i * n + j] = Math.round((metres(points[i]!, points[j]!) * 1.3) / 8.33);
    const ready = new Map([
      [3, 5400],
      [9, 7200],
    ]);
    const problem: FleetProblem = {
      locations: n,
      travel,
      vehicles: [0, 1].map(() => ({ start: 0, end: 0, shiftEnd: 32_400, capacity: [12] })),
      jobs: [2, 3, 1, 2, 3, 2, 1, 2, 3, 1].map((parcels, k) => ({
        location: k + 1,
        service: 180,
        demand: [parcels],
        ...(ready.has(k + 1) ? { ready: ready.get(k + 1) } : {}),
      })),
    };
    // duration and driving of a route visiting `jobs` in this order (start 0, return to the depot)
    const measure = (jobs: readonly number[]) => {
      let clock = 0;
      let driving = 0;
      let at = 0;
      for (const j of jobs) {
        const job = problem.jobs[j]!;
        driving += travel[at * n + job.location]!;
        clock = Math.max(clock + travel[at * n + job.location]!, job.ready ?? 0) + job.service!;
        at = job.location;
      }
      return { duration: clock + travel[at * n]!, driving: driving + travel[at * n]! };
    };
    // every order reachable by moving one stop or reversing one stretch of the route
    const neighbours = function* (jobs: readonly number[]) {
      for (let i = 0; i < jobs.length; i++) {
        for (let k = 0; k < jobs.length; k++) {
          if (k === i) continue;
          const moved = jobs.filter((_, x) => x !== i);
          moved.splice(k, 0, jobs[i]!);
          yield moved;
        }
        for (let k = i + 2; k <= jobs.length; k++)
          yield [...jobs.slice(0, i), ...jobs.slice(i, k).reverse(), ...jobs.slice(k)];
      }
    };
    const shorterAtSameDuration = (plan: FleetResult) =>
      plan.routes.flatMap((route) => {
        const current = measure(route.jobs);
        assert.deepEqual(
          { duration: current.duration, driving: current.driving },
          { duration: route.duration, driving: route.distance },
          'the test measures routes as the solver does',
        );
        return [...neighbours(route.jobs)].filter((jobs) => {
          const other = measure(jobs);
          return other.duration <= current.duration && other.driving < current.driving && other.duration <= 32_400;
        });
      });

    const plan = solver.solveFleet(problem, { seed: 1, maxIterations: 500, timeLimitMs: 0 });
    assert.equal(plan.routes.length, 2);
    assert.deepEqual(
      shorterAtSameDuration(plan),
      [],
      'no stop move or reversal drives less without lengthening the route',
    );
    // without the driving term the same search settles for a zigzag: the check above can fail
    const durationOnly = solver.solveFleet(
      { ...problem, objective: { vehicleCost: 2 ** 40, durationWeight: 1, distanceWeight: 0 } },
      { seed: 1, maxIterations: 500, timeLimitMs: 0 },
    );
    assert.notDeepEqual(shorterAtSameDuration(durationOnly), []);
    assert.equal(plan.cost.duration, durationOnly.cost.duration, 'the driving term gives up no duration');
  });

  it(
    'native and WASM builds give identical plans at fixed iterations (Solomon and random days)',
    { skip: findCargo() === null ? 'no cargo found' : false, timeout: 900_000 },
    () => {
      const cases: Array<{ name: string; p: FleetProblem; seed: number; iters: number; stall?: number }> = [
        ...SOLOMON.map((name, k) => ({ name, p: solomonProblem(solomon(name), k === 1), seed: k + 1, iters: 150 })),
        ...RANDOM.map(([seed, n, v]) => ({
          name: `random-${seed} (${n} jobs, ${v} vehicles)`,
          p: randomFleet(seed, n, v),
          seed,
          iters: 200,
        })),
        {
          name: 'random-8 with shipments and backhauls (60 jobs, 5 vehicles)',
          p: withShipments(randomFleet(8, 60, 5), 10, 50),
          seed: 8,
          iters: 200,
        },
        // the anytime stop ends these well before their iteration budget
        { name: 'R101, stall 40', p: solomonProblem(solomon('R101')), seed: 3, iters: 100_000, stall: 40 },
        {
          name: 'random-7 (40 jobs, 4 vehicles), stall 30',
          p: randomFleet(7, 40, 4),
          seed: 7,
          iters: 100_000,
          stall: 30,
        },
      ];
      const dir = mkdtempSync(join(tmpdir(), 'fleet-parity-'));
      try {
        const files = cases.map((c, k) => writeFleetFile(join(dir, `${k}.txt`), c.p, c.seed, c.iters, c.stall));
        const native = runNativeFleet(findCargo()!, files);
        assert.equal(native.length, cases.length);
        cases.forEach((c, k) => {
          assert.equal(native[k].status, 0, c.name);
          const { solveMs: _ms, ...wasm } = solver.solveFleet(c.p, {
            seed: c.seed,
            maxIterations: c.iters,
            timeLimitMs: 0,
            stallIterations: c.stall,
          });
          assert.deepEqual(
            wasm,
            readFleetOut(Float64Array.from(native[k].out!), c.p.vehicles.length, c.p.jobs.length),
            `${c.name}: plans differ`,
          );
          if (c.stall === undefined) assert.equal(wasm.iterations, c.iters);
          else
            assert.ok(
              wasm.iterations >= wasm.bestIteration + c.stall && wasm.iterations < c.iters,
              `${c.name}: ${wasm.iterations} iterations, best at ${wasm.bestIteration}`,
            );
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'the native Solomon bench and the WASM one agree: same scaled problem, same plans, and both checkers give the same totals',
    { skip: findCargo() === null ? 'no cargo found' : false, timeout: 900_000 },
    () => {
      const cargo = findCargo()!;
      const crate = join(ROOT, 'solver-rs');
      const version = execFileSync(cargo, ['--version'], { encoding: 'utf8' })
        .trim()
        .replace(/[^\w.]+/g, '-');
      const env = { ...process.env, CARGO_TARGET_DIR: join(crate, 'target', `parity-${version}`) };
      execFileSync(cargo, ['build', '--release', '--quiet', '--bin', 'solomon'], {
        cwd: crate,
        stdio: ['ignore', 'ignore', 'inherit'],
        env,
      });
      const out = execFileSync(
        join(crate, 'target', `parity-${version}`, 'release', 'solomon'),
        ['--solomon', join(ROOT, 'data/solomon'), '--max-iterations', '100', '--only', SOLOMON.join(','), '--json'],
        { encoding: 'utf8' },
      );
      const native = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { instance: string; routes: number[][]; distance: number; vehicles: number });
      assert.deepEqual(native.map((n) => n.instance).sort(), [...SOLOMON].sort());
      for (const n of native) {
        const inst = solomon(n.instance);
        const wasm = solver.solveFleet(solomonProblem(inst), { seed: 1, maxIterations: 100 });
        assert.deepEqual(customerRoutes(wasm.routes), n.routes, `${n.instance}: native and WASM plans differ`);
        // the Rust checker (fleet/solomon.rs) and the TypeScript one (fleet-check.ts) on the same routes
        assert.ok(
          Math.abs(checkSolomon(inst, n.routes).distance - n.distance) < 1e-9,
          `${n.instance}: checkers disagree`,
        );
      }
    },
  );

  it('random days: capacity never exceeded, every job once or unassigned, schedules follow the matrix, reasons', () => {
    for (const [seed, n, v] of [...RANDOM, [5, 40, 4], [6, 80, 10]] as Array<[number, number, number]>) {
      const p = randomFleet(seed, n, v);
      const r = solver.solveFleet(p, { seed, maxIterations: 300 });
      assertConsistent(p, r, `random-${seed}`);
      const reason = new Map(r.unassigned.map((u) => [u.job, u.reason]));
      assert.equal(reason.get(0), 'allowedVehicles', `random-${seed}: job 0 has no allowed vehicle`);
      assert.equal(reason.get(1), 'capacity', `random-${seed}: job 1 is heavier than every vehicle`);
      assert.equal(reason.get(n - 1), 'unreachable', `random-${seed}: the last job's location cannot be reached`);
    }
  });

  it('shipments and backhauls: pickup first on the same vehicle, the load within capacity at every point', () => {
    for (const [seed, n, v] of [
      [11, 30, 3],
      [12, 60, 5],
      [13, 40, 2],
    ] as Array<[number, number, number]>) {
      const p = withShipments(randomFleet(seed, n, v), 4, n - 4);
      const r = solver.solveFleet(p, { seed, maxIterations: 300 });
      assertConsistent(p, r, `shipments-${seed}`);
      const routeOf = new Map(r.routes.flatMap((x) => x.jobs.map((j, k) => [j, [x.vehicle, k]] as const)));
      let served = 0;
      for (const s of p.shipments!) {
        const [a, b] = [routeOf.get(s.pickup), routeOf.get(s.delivery)];
        assert.equal(a === undefined, b === undefined, `shipments-${seed}: ${s.pickup}-${s.delivery} half-assigned`);
        if (a && b) {
          assert.equal(a[0], b[0], 'same vehicle');
          assert.ok(a[1] < b[1], 'pickup first');
          served++;
        }
      }
      assert.ok(served > p.shipments!.length / 2, `shipments-${seed}: ${served} served`);
      // the checker refuses the same plan with one served pair's ends swapped
      const route = r.routes.find((x) => p.shipments!.some((s) => x.jobs.includes(s.pickup)))!;
      const s = p.shipments!.find((x) => route.jobs.includes(x.pickup))!;
      const swapped = route.jobs.map((j) => (j === s.pickup ? s.delivery : j === s.delivery ? s.pickup : j));
      assert.throws(
        () =>
          checkPlan(
            modelOf(p),
            r.routes.map((x) => (x === route ? { vehicle: x.vehicle, jobs: swapped } : x)),
            r.unassigned.map((u) => u.job),
          ),
        /before its pickup/,
      );
    }
  });

  it('Solomon: plans are feasible in unrounded doubles, every customer served', () => {
    for (const [k, name] of SOLOMON.entries()) {
      const inst = solomon(name);
      const p = solomonProblem(inst, k % 2 === 1);
      const r = solver.solveFleet(p, { seed: 1, maxIterations: 200 });
      assert.equal(r.unassigned.length, 0, name);
      assertConsistent(p, r, name);
      const { distance } = checkSolomon(inst, customerRoutes(r.routes));
      assert.ok(Math.abs(distance - r.cost.distance / 100_000) < 0.01, `${name}: ${distance} vs ${r.cost.distance}`);
    }
  });

  it('the checker catches a broken plan (so the checks above can fail)', () => {
    const inst = solomon('C101');
    const p = solomonProblem(inst);
    const r = solver.solveFleet(p, { seed: 1, maxIterations: 50 });
    const routes = customerRoutes(r.routes);
    assert.throws(() => checkSolomon(inst, [...routes.slice(1), [...routes[0]].reverse()]), /after its due|capacity/);
    assert.throws(() => checkSolomon(inst, routes.slice(1)), /neither in a route/);
    const q = randomFleet(1, 30, 3);
    const s = solver.solveFleet(q, { seed: 1, maxIterations: 100 });
    const heavy = s.routes.map((x) => ({ vehicle: x.vehicle, jobs: x.jobs }));
    heavy[0] = { vehicle: heavy[0].vehicle, jobs: [...heavy[0].jobs, 1] };
    assert.throws(
      () =>
        checkPlan(
          modelOf(q),
          heavy,
          s.unassigned.map((u) => u.job).filter((j) => j !== 1),
        ),
      /capacity|not allowed|after/,
    );
  });

  it("times (ABI 4): each route's departure, every stop's arrival, wait, start, departure and lateness against its deadline as given, and the return", () => {
    for (const [seed, n, v] of RANDOM) {
      const p = randomFleet(seed, n, v);
      p.jobs[2]!.deadline = -300; // already past at 0
      p.jobs[3]!.deadline = -1; // a deadline, not "none"
      const r = solver.solveFleet(p, { seed, maxIterations: 150 });
      assertConsistent(p, r, `random-${seed}`);
      const m = p.locations;
      for (const route of r.routes) {
        const veh = p.vehicles[route.vehicle]!;
        let [at, t] = [veh.start, veh.shiftStart ?? 0];
        const stops = route.jobs.map((j) => {
          const job = p.jobs[j]!;
          const arrivalS = t + p.travel[at * m + job.location]!;
          const startS = Math.max(arrivalS, job.ready ?? 0);
          t = startS + (job.service ?? 0);
          at = job.location;
          return {
            arrivalS,
            waitS: startS - arrivalS,
            startS,
            departureS: t,
            latenessS: job.deadline === undefined ? 0 : Math.max(0, startS - job.deadline),
          };
        });
        const endS = veh.end === undefined ? t : t + p.travel[at * m + veh.end]!;
        const label = `random-${seed}, vehicle ${route.vehicle}`;
        assert.deepEqual(
          route.times,
          { departureS: veh.shiftStart ?? 0, stops, endS, durationS: route.duration, latenessS: route.lateness },
          label,
        );
        assert.equal(endS - (veh.shiftStart ?? 0), route.duration, label);
        assert.deepEqual(
          stops.map((x) => x.startS),
          route.starts,
          label,
        );
      }
      const late = r.routes.flatMap((x) => x.jobs.map((j, k) => [j, x.times!.stops[k]!.latenessS] as const));
      for (const [j, latenessS] of late)
        if (j === 2 || j === 3) assert.ok(latenessS > 0, `job ${j} is necessarily late`);
    }
  });

  it('bad problems are rejected with their status before or inside the module', () => {
    const p = randomFleet(1, 10, 2);
    const bad = (q: FleetProblem, status: number) =>
      assert.throws(
        () => solver.solveFleet(q),
        (e: unknown) => e instanceof SolverError && e.code === 'invalid_input' && e.status === status,
      );
    bad({ ...p, vehicles: [] }, Status.NO_VEHICLES);
    bad({ ...p, jobs: [] }, Status.NO_JOBS);
    bad({ ...p, travel: new Int32Array(3) }, Status.BAD_MATRIX);
    bad({ ...p, jobs: [{ location: 99 }] }, Status.BAD_LOCATION);
    bad({ ...p, jobs: [{ location: 1, ready: 10, due: 5 }] }, Status.BAD_WINDOW);
    bad({ ...p, jobs: [{ location: 1, demand: [-1] }] }, Status.NEGATIVE_QUANTITY);
    bad({ ...p, jobs: [{ location: 1, service: 1.5 }] }, Status.BAD_NUMBER);
    bad({ ...p, jobs: [{ location: 1, allowedVehicles: [2] }] }, Status.BAD_VEHICLE_INDEX);
    bad({ ...p, objective: { vehicleCost: -1, durationWeight: 0, distanceWeight: 0 } }, Status.BAD_OBJECTIVE);
    // the solver still works afterwards
    assertConsistent(p, solver.solveFleet(p, { maxIterations: 20 }), 'after errors');
  });

  it('stallIterations stops a time-limited plan once the best has not improved for that many iterations', () => {
    const p = randomFleet(4, 12, 2);
    // distance only: no fleet-minimisation phase, the count starts at the best plan's iteration
    const d = solver.solveFleet(
      { ...p, objective: DISTANCE_OBJECTIVE },
      { seed: 2, timeLimitMs: 120_000, stallIterations: 25 },
    );
    assert.equal(d.iterations, d.bestIteration + 25);
    assertConsistent({ ...p, objective: DISTANCE_OBJECTIVE }, d, 'stall, distance');
    // with a vehicle cost the fleet phase runs first (and ends once it stalls too)
    const s = solver.solveFleet(p, { seed: 2, timeLimitMs: 120_000, stallIterations: 25 });
    assert.ok(s.iterations >= s.bestIteration + 25, `${s.iterations} iterations, best at ${s.bestIteration}`);
    assertConsistent(p, s, 'stall, service');
    // the same plan at a fixed iteration budget above the stop, whatever the time limit
    const { solveMs: _a, ...fixed } = solver.solveFleet(p, { seed: 2, maxIterations: 1_000_000, stallIterations: 25 });
    const { solveMs: _b, ...timed } = s;
    assert.deepEqual(fixed, timed);
    assert.throws(
      () => solver.solveFleet(p, { stallIterations: -1 }),
      (e: unknown) => e instanceof SolverError && e.status === Status.BAD_NUMBER,
    );
    assert.throws(
      () => solver.solveFleet(p, { stallIterations: 2.5 }),
      (e: unknown) => e instanceof SolverError && e.status === Status.BAD_NUMBER,
    );
  });

  it('serviceStallIterations: 100 for small plans, then n²/10, rising with n', () => {
    assert.deepEqual(
      [1, 10, 20, 31, 32, 100, 300, 1000].map(serviceStallIterations),
      [100, 100, 100, 100, 103, 1000, 9000, 100_000],
    );
    for (let n = 1; n <= 8192; n += 37)
      assert.ok(
        serviceStallIterations(n + 1) >= serviceStallIterations(n) && Number.isInteger(serviceStallIterations(n)),
      );
  });

  it('runs in the worker pool with the same result as in-thread', async () => {
    const pool = new SolverPool({ size: 1 });
    try {
      const p = randomFleet(2, 60, 5);
      const { solveMs: _a, ...inPool } = await pool.solveFleet(p, { seed: 4, maxIterations: 150 });
      const { solveMs: _b, ...inThread } = solver.solveFleet(p, { seed: 4, maxIterations: 150 });
      assert.deepEqual(inPool, inThread);
      const { solveMs: _c, ...stallPool } = await pool.solveFleet(p, {
        seed: 4,
        maxIterations: 100_000,
        stallIterations: 30,
      });
      const { solveMs: _d, ...stallThread } = solver.solveFleet(p, {
        seed: 4,
        maxIterations: 100_000,
        stallIterations: 30,
      });
      assert.deepEqual(stallPool, stallThread);
      assert.ok(stallPool.iterations < 100_000);
      await assert.rejects(
        pool.solveFleet({ ...p, vehicles: [] }),
        (e: unknown) => e instanceof SolverError && e.code === 'invalid_input',
      );
      const ac = new AbortController();
      ac.abort();
      await assert.rejects(
        pool.solveFleet(p, { signal: ac.signal }),
        (e: unknown) => e instanceof SolverError && e.code === 'aborted',
      );
    } finally {
      await pool.close();
    }
  });

  it('an ABI 3 module built before stallIterations still plans (without times), and runs to its budget; the pool refuses it', (t) => {
    const file = solverBuildFile(t, '12fcdfc', 'the ABI 3 build');
    if (!file) return;
    const old = loadSolver(file);
    assert.equal(old.abiVersion, 3);
    // the service's pool needs ABI 4 (the schedules); benches still load it in-thread
    assert.throws(
      () => new SolverPool({ wasmPath: file }),
      (e: unknown) => e instanceof SolverError && e.code === 'load_failed' && /ABI 4/.test(e.message),
    );
    assert.throws(
      () =>
        old.evaluate(
          {
            durations: new Int32Array([0, 5, 5, 0]),
            size: 2,
            serviceS: new Int32Array(1),
            deadlineS: new Int32Array([NO_DEADLINE]),
            hasEnd: false,
          },
          [0],
        ),
      (e: unknown) => e instanceof SolverError && e.code === 'unsupported',
    );
    const p = randomFleet(2, 30, 3);
    const r = old.solveFleet(p, { seed: 1, maxIterations: 300, stallIterations: 10 });
    assert.equal(r.iterations, 300);
    assertConsistent(p, r, 'ABI 3 before stallIterations');
    assert.ok(solver.solveFleet(p, { seed: 1, maxIterations: 300, stallIterations: 10 }).iterations < 300);
  });

  it('a module of ABI 2 (the previous build) still loads and solves single routes; plans say unsupported', (t) => {
    const file = solverBuildFile(t, '85df514', 'the ABI 2 build');
    if (!file) return;
    const old = loadSolver(file);
    assert.equal(old.abiVersion, 2);
    assert.equal(
      old.solve({
        durations: new Int32Array([0, 5, 5, 0]),
        size: 2,
        serviceS: new Int32Array(1),
        deadlineS: new Int32Array([NO_DEADLINE]),
        hasEnd: false,
      }).order.length,
      1,
    );
    assert.throws(
      () => old.solveFleet(randomFleet(1, 5, 1)),
      (e: unknown) => e instanceof SolverError && e.code === 'unsupported',
    );
  });
});
