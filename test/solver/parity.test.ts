import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { OPERATOR_NAMES, loadSolver, type OperatorCounter, type SolveProblem } from '../../src/solver/index.js';
import { legacyDeadlines } from '../../src/solver/abi.js';
import { closedTourProblem, parseTsplib } from '../../scripts/lib/tsplib.js';
import { ROOT, SAMPLE_DIR, TSPLIB_DIR, findCargo, randomProblem } from './helpers.js';

/** The native CLI's problem file format (see solver-rs/src/bin/solve.rs; deadlines as the search reads them). */
function problemFile(p: SolveProblem, seed: number, maxIterations: number, stall: number): string {
  return (
    [
      `${p.size} ${p.hasEnd ? 1 : 0} ${seed} ${maxIterations} ${stall}`,
      Array.from(p.durations).join(' '),
      Array.from(p.serviceS).join(' '),
      Array.from(legacyDeadlines(p.deadlineS)).join(' '),
    ].join('\n') + '\n'
  );
}

interface NativeResult {
  status: number;
  order: number[];
  latenessS: number;
  durationS: number;
  iterations: number;
  finalIteration: number;
  improvements: Array<[number, number, number]>;
  operators: Record<string, [number, number, number]>;
}

describe('WASM and native parity', () => {
  const cargo = findCargo();
  it(
    'same seed and iteration cap (no time limit) give the same route, search path and counters',
    { skip: cargo === null ? 'no cargo found' : false, timeout: 900_000 },
    () => {
      const crate = join(ROOT, 'solver-rs');
      const cases: Array<{ name: string; p: SolveProblem; seed: number; iters: number; stall: number }> = [];
      const ends = ['open', 'closed', 'separate'] as const;
      for (let k = 0; k < 9; k++) {
        cases.push({
          name: `random-${k}`,
          p: randomProblem(500 + k, [7, 15, 40, 90][k % 4], ends[k % 3], {
            deadlines: k % 2 === 0,
            service: k % 3 !== 1,
          }),
          seed: k + 1,
          iters: 400,
          stall: 0,
        });
      }
      // tight deadlines: lateness is unavoidable, exercises the exact-evaluation path
      const tight = randomProblem(600, 50, 'closed', { service: true });
      tight.deadlineS.fill(100);
      cases.push({ name: 'unavoidable-lateness', p: tight, seed: 3, iters: 100, stall: 0 });
      for (const name of ['eil51', 'st70']) {
        const inst = parseTsplib(readFileSync(join(SAMPLE_DIR, `${name}.tsp`), 'utf8'), name);
        cases.push({ name, p: closedTourProblem(inst), seed: 11, iters: 2000, stall: 0xffffffff });
      }
      // TSPLIB at fixed kicks, without the convergence stop (kroE100 is the instance on which
      // the previous solver's native and WASM benches disagreed), and one with the default stop
      const tsplib = [
        ['berlin52', 1500],
        ['kroE100', 1500],
        ['ch130', 600],
        ['pr152', 600],
        ['d198', 300],
        ['gil262', 200],
      ] as const;
      for (const [name, iters] of tsplib) {
        const inst = parseTsplib(readFileSync(join(TSPLIB_DIR, `${name}.tsp`), 'utf8'), name);
        cases.push({ name: `${name}@${iters}`, p: closedTourProblem(inst), seed: 3, iters, stall: 0xffffffff });
      }
      const rat = parseTsplib(readFileSync(join(TSPLIB_DIR, 'rat99.tsp'), 'utf8'), 'rat99');
      cases.push({ name: 'rat99 (default convergence stop)', p: closedTourProblem(rat), seed: 2, iters: 0, stall: 0 });
      const dir = mkdtempSync(join(tmpdir(), 'solver-parity-'));
      try {
        const files = cases.map((c, k) => {
          const f = join(dir, `${k}.txt`);
          writeFileSync(f, problemFile(c.p, c.seed, c.iters, c.stall));
          return f;
        });
        // One target dir per toolchain (solver-rs/target is git-ignored): cargo
        // versions must not share build artefacts.
        const version = execFileSync(cargo!, ['--version'], { encoding: 'utf8' })
          .trim()
          .replace(/[^\w.]+/g, '-');
        const targetDir = join(crate, 'target', `parity-${version}`);
        execFileSync(cargo!, ['build', '--release', '--quiet', '--bin', 'solve'], {
          cwd: crate,
          stdio: ['ignore', 'ignore', 'inherit'],
          env: { ...process.env, CARGO_TARGET_DIR: targetDir },
        });
        const bin = join(targetDir, 'release', 'solve');
        assert.ok(existsSync(bin), `native CLI not found at ${bin}`);
        const lines = execFileSync(bin, files, { encoding: 'utf8' }).trim().split('\n');
        assert.equal(lines.length, cases.length);
        const wasm = loadSolver();
        let tsplibCases = 0;
        cases.forEach((c, k) => {
          const native = JSON.parse(lines[k]) as NativeResult;
          assert.equal(native.status, 0, c.name);
          const w = wasm.solve(c.p, {
            seed: c.seed,
            maxIterations: c.iters,
            stallIterations: c.stall,
            timeLimitMs: 0,
            report: true,
          });
          assert.deepEqual(w.order, native.order, `${c.name}: orders differ`);
          assert.equal(w.latenessS, native.latenessS, c.name);
          assert.equal(w.durationS, native.durationS, c.name);
          assert.equal(w.iterations, native.iterations, c.name);
          if (c.p.serviceS.length > 10) {
            // the whole search path: every new best route and every operator counter
            assert.ok(w.report, `${c.name}: no report`);
            assert.equal(w.report.finalIteration, native.finalIteration, c.name);
            assert.deepEqual(
              w.report.improvements.map((e) => [e.iteration, e.latenessS, e.durationS]),
              native.improvements,
              `${c.name}: search paths differ`,
            );
            for (const op of OPERATOR_NAMES) {
              const o: OperatorCounter = w.report!.operators[op];
              assert.deepEqual(
                [o.tried, o.improving, o.applied],
                native.operators[op],
                `${c.name}: ${op} counters differ`,
              );
            }
          }
          if (c.name.includes('@')) tsplibCases++;
        });
        assert.ok(tsplibCases >= 5);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
