/**
 * The solver a bench measures, loaded the same way by every bench: a build that does not compile ends the bench
 * with one line naming it (through the bench's `fail`), never a stack trace; `--cpu-clock` budgets count this
 * process's CPU time.
 */
import { loadSolver, type InThreadSolver } from '../../src/solver/load.js';

/** This process's CPU time in ms (user and system, every thread: V8's compiler threads included). */
export function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function loadBenchSolver(wasm: string, cpuClock: boolean, fail: (msg: string) => never): InThreadSolver {
  try {
    return loadSolver(wasm, cpuClock ? { clock: processCpuMs } : {});
  } catch (err) {
    fail(`--wasm ${wasm}: ${(err as Error).message}`);
  }
}
