/**
 * The solve that warms a module before a bench's measured solves, left out of its figures. V8 runs a WebAssembly
 * function in its baseline code until the function has run for a while, then compiles it with its optimizing
 * compiler on other threads, and a CPU-time budget (process.cpuUsage) counts those threads: on the 1000 × 20 day a
 * cold module's first 1,000 iterations took about 0.2 s more CPU than wall time, warm ones none. A long-running
 * service's module is warm, so the benches measure warm modules.
 */
import { SolverError } from '../../src/solver/errors.js';
import type { InThreadSolver } from '../../src/solver/load.js';
import type { FleetProblem } from '../../src/solver/fleet-types.js';

/** Iterations of the warm-up solve: enough for the hot functions to be optimized (a 1 ms solve is not). */
export const WARM_UP_ITERATIONS = 300;

/** Solves `problem` for `iterations` fixed iterations (0: a 1 ms solve); a problem the module refuses is left to the measured solve to report. */
export function warmUp(solver: InThreadSolver, problem: FleetProblem, iterations: number = WARM_UP_ITERATIONS): void {
  try {
    solver.solveFleet(problem, iterations > 0 ? { maxIterations: iterations } : { timeLimitMs: 1 });
  } catch (err) {
    if (!(err instanceof SolverError)) throw err;
  }
}
