import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import {
  ABI_VERSION,
  DEFAULT_WASM_PATH,
  NO_DEADLINE,
  OPERATOR_NAMES,
  SolverError,
  Status,
  compileSolverModule,
  loadSolver,
} from '../../src/solver/index.js';
import { closedTourProblem, parseTsplib, tourFromOrder, tourLength } from '../../scripts/lib/tsplib.js';
import { SAMPLE_DIR, bruteForce, evaluate, isPermutation, randomProblem, type EndKind } from './helpers.js';

const ENDS: EndKind[] = ['open', 'closed', 'separate'];

describe('solver ABI', () => {
  it('module has the documented exports and imports', () => {
    const module = compileSolverModule();
    const exports = WebAssembly.Module.exports(module).map((e) => `${e.kind}:${e.name}`);
    for (const e of [
      'memory:memory',
      'function:abi_version',
      'function:alloc',
      'function:dealloc',
      'function:solve',
      'function:solve_with_report',
      'function:solve_fleet',
      'function:trap_for_test',
    ]) {
      assert.ok(exports.includes(e), `missing export ${e}`);
    }
    const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}:${i.kind}`);
    assert.deepEqual(imports.sort(), ['env.now_ms:function', 'env.on_improve:function']);
    assert.throws(
      () => new WebAssembly.Instance(module, { env: { now_ms: () => 0 } }),
      WebAssembly.LinkError,
      'on_improve is a required import',
    );
    const inst = new WebAssembly.Instance(module, { env: { now_ms: () => 0, on_improve: () => {} } });
    assert.equal((inst.exports.abi_version as () => number)(), ABI_VERSION);
  });

  it('round trip: small problems are solved exactly (equal to brute force), all end variants', () => {
    const solver = loadSolver();
    for (let k = 0; k < 36; k++) {
      const n = 1 + (k % 8);
      const p = randomProblem(100 + k, n, ENDS[k % 3], { deadlines: k % 2 === 0, service: k % 3 !== 0 });
      const r = solver.solve(p, { seed: 1 });
      assert.ok(isPermutation(r.order, n), `not a permutation: ${r.order}`);
      const c = evaluate(p, r.order);
      assert.deepEqual({ latenessS: r.latenessS, durationS: r.durationS }, c, 'reported cost != recomputed cost');
      assert.deepEqual(c, bruteForce(p), `not optimal for case ${k}`);
      assert.equal(r.iterations, 0);
    }
  });

  it('round trip: larger problems give permutations with correctly reported costs', () => {
    const solver = loadSolver();
    for (let k = 0; k < 9; k++) {
      const n = [11, 30, 80][k % 3];
      const p = randomProblem(200 + k, n, ENDS[k % 3], { deadlines: k % 2 === 1, service: true });
      const r = solver.solve(p, { seed: 7, maxIterations: 300 });
      assert.ok(isPermutation(r.order, n));
      assert.deepEqual({ latenessS: r.latenessS, durationS: r.durationS }, evaluate(p, r.order));
      assert.ok(r.iterations > 0 && r.iterations <= 300);
    }
  });

  it("times (ABI 4): every stop's arrival, start, departure and lateness against its deadline as given, for the returned order and any other", () => {
    const solver = loadSolver();
    for (const [k, end] of (['open', 'closed', 'separate'] as const).entries()) {
      const p = randomProblem(400 + k, 25, end, { deadlines: true, service: true });
      p.deadlineS[3] = -600; // already past at departure
      p.deadlineS[4] = -1; // one second before departure: a deadline, not "none"
      const expected = (order: readonly number[]) => {
        const m = p.size;
        let [at, t, late] = [0, 0, 0];
        const stops = order.map((s) => {
          const arrivalS = t + p.durations[at * m + s + 1];
          const latenessS = p.deadlineS[s] === NO_DEADLINE ? 0 : Math.max(0, arrivalS - p.deadlineS[s]);
          t = arrivalS + p.serviceS[s];
          at = s + 1;
          late += latenessS;
          return { arrivalS, waitS: 0, startS: arrivalS, departureS: t, latenessS };
        });
        const endS = p.hasEnd ? t + p.durations[at * m + m - 1] : t;
        return { departureS: 0, stops, endS, durationS: endS, latenessS: late };
      };
      const r = solver.solve(p, { seed: 3, maxIterations: 100 });
      assert.deepEqual(r.times, expected(r.order), end);
      assert.deepEqual([r.latenessS, r.durationS], [r.times!.latenessS, r.times!.durationS]);
      assert.ok(r.times!.stops[r.order.indexOf(3)]!.latenessS >= 600);
      const reversed = [...r.order].reverse();
      assert.deepEqual(solver.evaluate(p, reversed), expected(reversed), `${end}, reversed`);
    }
  });

  it('no stops: empty order, duration start -> end', () => {
    const solver = loadSolver();
    const r = solver.solve({
      durations: new Int32Array([0, 42, 7, 0]),
      size: 2,
      serviceS: new Int32Array(0),
      deadlineS: new Int32Array(0),
      hasEnd: true,
    });
    assert.deepEqual(r.order, []);
    assert.equal(r.durationS, 42);
    const open = solver.solve({
      durations: new Int32Array([0]),
      size: 1,
      serviceS: new Int32Array(0),
      deadlineS: new Int32Array(0),
      hasEnd: false,
    });
    assert.deepEqual(open.order, []);
    assert.equal(open.durationS, 0);
  });

  it('deadlines decide the order before duration', () => {
    // start 0, stops at x=10 and x=20 on a line; the far stop is due at 20 s
    const xs = [0, 10, 20];
    const durations = new Int32Array(9).map((_, k) => Math.abs(xs[Math.floor(k / 3)] - xs[k % 3]));
    const base = { durations, size: 3, serviceS: new Int32Array([1, 2]), hasEnd: false };
    const free = loadSolver().solve({ ...base, deadlineS: new Int32Array([NO_DEADLINE, NO_DEADLINE]) });
    assert.deepEqual(free.order, [0, 1]);
    const due = loadSolver().solve({ ...base, deadlineS: new Int32Array([NO_DEADLINE, 20]) });
    assert.deepEqual(due.order, [1, 0]);
    assert.equal(due.latenessS, 0);
    assert.equal(due.durationS, 20 + 2 + 10 + 1);
  });

  it('same seed, same result; the order is unaffected by memory growth between calls', () => {
    const solver = loadSolver();
    const p = randomProblem(5, 60, 'closed', { deadlines: true, service: true });
    const a = solver.solve(p, { seed: 3, maxIterations: 200 });
    // a big problem grows linear memory (views must be refreshed)
    const big = randomProblem(6, 1200, 'open');
    const rb = solver.solve(big, { seed: 1, maxIterations: 1, stallIterations: 1, timeLimitMs: 2000 });
    assert.ok(isPermutation(rb.order, 1200));
    assert.deepEqual({ latenessS: rb.latenessS, durationS: rb.durationS }, evaluate(big, rb.order));
    const b = solver.solve(p, { seed: 3, maxIterations: 200 });
    assert.deepEqual(b.order, a.order);
  });

  it('TSPLIB sample: closed tours near the optimum, opt tours score their optimum', () => {
    const solver = loadSolver();
    const optima = JSON.parse(readFileSync(join(SAMPLE_DIR, 'optima.json'), 'utf8')) as Record<
      string,
      { optimum: number }
    >;
    for (const name of ['eil51', 'berlin52', 'st70']) {
      const inst = parseTsplib(readFileSync(join(SAMPLE_DIR, `${name}.tsp`), 'utf8'), name);
      const tourText = readFileSync(join(SAMPLE_DIR, `${name}.opt.tour`), 'utf8');
      const body = tourText.slice(tourText.indexOf('TOUR_SECTION') + 'TOUR_SECTION'.length);
      const ids = body.trim().split(/\s+/).map(Number);
      const opt = ids.slice(0, ids.indexOf(-1)).map((x) => x - 1);
      assert.equal(opt.length, inst.coords.length);
      assert.equal(tourLength(inst, opt), optima[name].optimum, `${name}.opt.tour length`);
      const r = solver.solve(closedTourProblem(inst), { seed: 1, maxIterations: 3000 });
      const tour = tourFromOrder(r.order);
      assert.equal(new Set(tour).size, inst.coords.length);
      assert.equal(tourLength(inst, tour), r.durationS);
      assert.ok(
        r.durationS <= optima[name].optimum * 1.02,
        `${name}: ${r.durationS} vs optimum ${optima[name].optimum}`,
      );
    }
  });

  it('default wasm path points at the committed module', () => {
    assert.ok(DEFAULT_WASM_PATH.endsWith(join('data', 'solver', 'solver.wasm')));
    assert.ok(readFileSync(DEFAULT_WASM_PATH).length > 1000);
  });

  it('in-thread solver recovers after a trap', () => {
    const solver = loadSolver();
    assert.throws(
      () => solver.trapForTest(),
      (e: unknown) => e instanceof SolverError && e.code === 'trap',
    );
    const p = randomProblem(9, 8, 'open');
    assert.deepEqual(evaluate(p, solver.solve(p).order), bruteForce(p));
  });

  it('report: improvement events end at the returned route, counters add up, absent unless asked', () => {
    const solver = loadSolver();
    assert.equal(solver.abiVersion, ABI_VERSION);
    for (const [k, end] of (['open', 'closed', 'separate'] as const).entries()) {
      const p = randomProblem(300 + k, 70, end, { deadlines: k === 1, service: true });
      const r = solver.solve(p, {
        seed: 2,
        maxIterations: 250,
        stallIterations: 0xffffffff,
        timeLimitMs: 0,
        report: true,
      });
      const rep = r.report!;
      assert.ok(rep, 'report requested');
      assert.equal(rep.improvements.length, rep.improvementsTotal);
      const last = rep.improvements.at(-1)!;
      assert.deepEqual(
        [last.latenessS, last.durationS, last.iteration],
        [r.latenessS, r.durationS, rep.finalIteration],
      );
      assert.equal(rep.improvements[0].iteration, 0);
      for (let i = 1; i < rep.improvements.length; i++) {
        const [a, b] = [rep.improvements[i - 1], rep.improvements[i]];
        assert.ok(
          b.latenessS < a.latenessS || (b.latenessS === a.latenessS && b.durationS < a.durationS),
          'costs strictly improve',
        );
        assert.ok(b.iteration > a.iteration && b.ms >= a.ms);
      }
      assert.ok(rep.msToFinal >= 0 && rep.msToFinal <= r.solveMs + 1);
      assert.deepEqual(Object.keys(rep.operators), [...OPERATOR_NAMES]);
      assert.equal(rep.operators.kick.tried, r.iterations);
      assert.equal(rep.operators.kick.improving, rep.improvements.length - 1);
      for (const name of OPERATOR_NAMES) {
        const c = rep.operators[name];
        assert.ok(
          c.improving <= c.tried && (name === 'kick' || name === 'late_relocate' || c.applied === c.improving),
          `${name} counters`,
        );
      }
      // the report does not change the search
      const plain = solver.solve(p, { seed: 2, maxIterations: 250, stallIterations: 0xffffffff, timeLimitMs: 0 });
      assert.equal(plain.report, undefined);
      assert.deepEqual(plain.order, r.order);
    }
  });

  it('the host clock drives the time limit (a clock that advances 1 ms per read)', () => {
    let t = 0;
    const solver = loadSolver(DEFAULT_WASM_PATH, { clock: () => ++t });
    const p = randomProblem(77, 120, 'closed');
    const r = solver.solve(p, { seed: 1, timeLimitMs: 40, stallIterations: 0xffffffff, report: true });
    assert.ok(isPermutation(r.order, 120));
    assert.ok(r.iterations < 40, `iterations ${r.iterations}`);
    assert.ok(r.solveMs > 0 && r.solveMs < 400, `solveMs ${r.solveMs} in fake ms`);
  });

  it('status codes are stable', () => {
    assert.deepEqual(Status, {
      OK: 0,
      BAD_SIZE: 1,
      BAD_LENGTH: 2,
      NEGATIVE_DURATION: 3,
      NEGATIVE_SERVICE: 4,
      BAD_DEADLINE: 5,
      BAD_FLAG: 6,
      BAD_TIME_LIMIT: 7,
      NULL_POINTER: 8,
      MISALIGNED: 9,
      NO_VEHICLES: 10,
      TOO_MANY_VEHICLES: 11,
      NO_JOBS: 12,
      BAD_MATRIX: 13,
      NEGATIVE_VALUE: 14,
      BAD_LOCATION: 15,
      NEGATIVE_QUANTITY: 16,
      BAD_WINDOW: 17,
      BAD_VEHICLE_INDEX: 18,
      BAD_OBJECTIVE: 19,
      TOO_MANY_DIMENSIONS: 20,
      BAD_NUMBER: 21,
      BAD_ORDER: 22,
      BAD_EXTRA: 23,
    });
  });
});
