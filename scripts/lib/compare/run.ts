/**
 * Runs every build × instance × seed × budget on a pool of worker threads, one
 * solve per thread at a time (threads = cores by default). Tasks are ordered
 * budget → instance → seed → build, so the builds of one (instance, seed,
 * budget) run side by side under the same machine load.
 */
import { fileURLToPath } from 'node:url';

import { Piscina } from 'piscina';

import type { BuildSpec } from './builds.js';
import type { SolveTask } from './solve-task.js';
import type { BenchInstance, RawResult } from './types.js';
import { EXTERNAL_SOLVERS } from './external.js';

const WORKER = fileURLToPath(new URL('./solve-worker.mjs', import.meta.url));

export interface RunPlan {
  builds: BuildSpec[];
  instances: BenchInstance[];
  seeds: number[];
  budgets: number[];
}

/** The tasks of a plan, and one line per (build, reason) left out. */
export function planTasks(plan: RunPlan): { tasks: SolveTask[]; notRun: string[] } {
  const tasks: SolveTask[] = [];
  const notRun = new Map<string, number>();
  for (const budgetMs of plan.budgets) {
    for (const instance of plan.instances) {
      for (const seed of plan.seeds) {
        for (const build of plan.builds) {
          const why = build.kind === 'external' ? EXTERNAL_SOLVERS[build.solver].unsupported(instance) : null;
          if (why) {
            const k = `${build.label}: ${why} (${instance.set})`;
            notRun.set(k, (notRun.get(k) ?? 0) + 1);
          } else {
            tasks.push({ build, instance, seed, budgetMs });
          }
        }
      }
    }
  }
  return { tasks, notRun: [...notRun].map(([k, count]) => `${k}: ${count} runs not made`) };
}

export async function runTasks(
  tasks: SolveTask[],
  threads: number,
  onResult: (r: RawResult, done: number) => void,
): Promise<RawResult[]> {
  const pool = new Piscina<SolveTask, RawResult>({
    filename: WORKER,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  const results: RawResult[] = new Array(tasks.length);
  let next = 0;
  let done = 0;
  // at most one queued task per thread: problems are cloned into the worker only when due
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      const r = await pool.run(tasks[i]);
      results[i] = r;
      done++;
      onResult(r, done);
    }
  };
  try {
    await Promise.all(Array.from({ length: threads }, lane));
  } finally {
    await pool.destroy();
  }
  return results;
}
