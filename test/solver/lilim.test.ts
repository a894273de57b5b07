/** The Li & Lim bench's parts: the parser, the problem the solver gets, and the independent plan checker. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadSolver } from '../../src/solver/index.js';
import { checkLilim, lilimProblem, loadLilimDir, parseLilim } from '../../scripts/lib/lilim.js';
import { customerRoutes } from '../../scripts/lib/solomon.js';
import { ROOT } from './helpers.js';

const read = (name: string) => parseLilim(name, readFileSync(join(ROOT, 'data/lilim', `${name}.txt`), 'utf8'));

test('data/lilim: the 56 instances parse, each task paired, with a best-known result each', () => {
  const { instances, bks } = loadLilimDir(join(ROOT, 'data/lilim'));
  assert.equal(instances.length, 56);
  for (const inst of instances) {
    assert.ok(bks.has(inst.name), `${inst.name} in bks.csv`);
    const p = lilimProblem(inst);
    assert.equal(p.shipments!.length * 2, p.jobs.length, `${inst.name}: every task in one pair`);
  }
  assert.deepEqual(bks.get('lc101'), { vehicles: 10, distance: 828.9369, who: 'Li&Lim' });
});

test('a solved plan passes the checker; a pair reversed, a pair split and a route too many do not', () => {
  const inst = read('lr104');
  const solver = loadSolver();
  const r = solver.solveFleet(lilimProblem(inst), { seed: 1, maxIterations: 100 });
  assert.equal(r.unassigned.length, 0);
  const routes = customerRoutes(r.routes);
  const distance = checkLilim(inst, routes);
  assert.ok(Math.abs(distance - r.cost.distance / 100_000) < 0.01, `${distance} vs ${r.cost.distance}`);
  // reverse one pair inside its route
  const route = routes[0]!;
  const pickup = route.find((t) => inst.tasks[t]!.demand > 0)!;
  const delivery = inst.tasks[pickup]!.delivery;
  const reversed = route.map((t) => (t === pickup ? delivery : t === delivery ? pickup : t));
  assert.throws(() => checkLilim(inst, [reversed, ...routes.slice(1)]), /before its pickup/);
  // move the delivery to another route
  const split = [route.filter((t) => t !== delivery), [...routes[1]!, delivery], ...routes.slice(2)];
  assert.throws(() => checkLilim(inst, split), /partner .* is elsewhere/);
  // one route per task: more routes than vehicles
  assert.throws(
    () =>
      checkLilim(
        inst,
        routes.flat().map((t) => [t]),
      ),
    /routes for 25 vehicles/,
  );
});

test('the capacity holds after every visit, not only at departure', () => {
  const inst = read('lc101');
  const solver = loadSolver();
  const r = solver.solveFleet(lilimProblem(inst), { seed: 1, maxIterations: 50 });
  const routes = customerRoutes(r.routes);
  checkLilim(inst, routes);
  // all pickups first, then all deliveries, on one long route: feasible only if every load fits at once
  // windows opened wide, so that only the load can fail
  const small = { ...inst, capacity: 10, tasks: inst.tasks.map((t) => ({ ...t, ready: 0, due: 1e9 })) };
  const pickups = inst.tasks.filter((t) => t.demand > 0).slice(0, 3);
  const order = [...pickups.map((t) => t.index), ...pickups.map((t) => t.delivery)];
  const total = pickups.reduce((s, t) => s + t.demand, 0);
  assert.ok(total > 10);
  const rest = routes.map((route) => route.filter((t) => !order.includes(t))).filter((x) => x.length > 0);
  assert.throws(() => checkLilim(small, [order, ...rest]), /above capacity 10/);
});
