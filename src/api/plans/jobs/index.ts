/** Asynchronous plans, as the wiring builds them: the intake (POST … Prefer: respond-async) and the runner. */
import type { ChargeOwner } from '../../../billing/lease.js';
import type { JobsConfig } from '../../../config-types.js';
import type { Logger } from '../../../logger.js';
import type { JobStore } from '../../../store/types.js';
import type { PlanOptimizer } from '../types.js';
import { JobIntake } from './intake.js';
import { JobRunner } from './runner.js';

export { JobIntake, JobRunner };
export { jobsRouter } from './router.js';

export interface PlanJobs {
  intake: JobIntake;
  runner: JobRunner;
}

const DAY_MS = 86_400_000;

export function planJobs(deps: {
  config: JobsConfig;
  store: JobStore;
  planner: PlanOptimizer;
  owner: ChargeOwner;
  logger: Logger;
  clock: () => Date;
}): PlanJobs {
  const { config } = deps;
  return {
    intake: new JobIntake({
      store: deps.store,
      planner: deps.planner,
      maxUnfinishedPerKey: config.maxUnfinishedPerKey,
      clock: deps.clock,
    }),
    runner: new JobRunner({
      store: deps.store,
      planner: deps.planner,
      owner: deps.owner,
      logger: deps.logger,
      // an API-only process leaves the queue to the workers
      concurrency: config.role === 'api' ? 0 : config.concurrency,
      pollMs: config.pollMs,
      progressMs: config.progressMs,
      retentionMs: config.retentionDays * DAY_MS,
      clock: deps.clock,
    }),
  };
}
