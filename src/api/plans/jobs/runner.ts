/**
 * Runs asynchronous plans: up to `concurrency` jobs at once, taken from the store's queue (shared by every
 * instance on the database). While a job runs, its progress (the solver's best plan so far, as it reports it) is
 * written every `progressMs`; the write also tells the runner whether the job is still its own (another instance
 * took it after this one's lease lapsed: it stops and writes nothing more) and whether its key asked to cancel it:
 * once the solver has a plan, a cancel ends its search and the job keeps that plan (`cancelled`, charged); before,
 * the job ends `cancelled` without one, refunded. A job that cannot run now (solver full, process stopping) goes
 * back to the queue; one that fails ends `failed` and is refunded with the same write.
 */
import type { ChargeOwner } from '../../../billing/lease.js';
import { untilAborted, type CallContext } from '../../../calls/charged-call.js';
import { DomainError } from '../../../errors.js';
import type { Logger } from '../../../logger.js';
import type { PlanOptimizer, PlanResult } from '../types.js';
import type { PlanRequest } from '../schema.js';
import type { Job, JobHold, JobStore } from '../../../store/types.js';
import type { JobProgress } from './view.js';
import { secondsToMin1 } from '../../../schedule/index.js';
import type { FleetProgress } from '../../../solver/fleet-types.js';

export interface JobRunnerDeps {
  store: JobStore;
  planner: PlanOptimizer;
  /** This process's instance lease: its id marks the jobs it runs. */
  owner: ChargeOwner;
  logger: Logger;
  concurrency: number;
  pollMs: number;
  /** Finished jobs older than this are deleted. */
  retentionMs: number;
  /** How often a running job's progress is written (and its cancel looked for). Default 1 s. */
  progressMs?: number;
  clock?: () => Date;
}

/** Geocoding and the travel matrix come on top of a job's solve budget: its deadline leaves them this much. */
export const JOB_PREPARATION_MS = 120_000;

/** A stop of the process: the job goes back to the queue, for this instance's next start or another instance. */
class Stopping extends Error {}
/** Another instance took the job (this one's lease lapsed): nothing more is written. */
class Lost extends Error {}
/** Its key asked to cancel it. */
class Cancelled extends Error {}

export class JobRunner {
  private running = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private taking = false;
  private readonly controllers = new Set<AbortController>();
  private readonly inFlight = new Set<Promise<void>>();
  private lastSweepMs = 0;

  constructor(private readonly deps: JobRunnerDeps) {}

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }

  start(): void {
    if (this.deps.concurrency > 0) this.schedule(0);
  }

  /** A job was accepted here: look for it now instead of at the next poll. */
  wake(): void {
    if (!this.stopped && this.deps.concurrency > 0) this.schedule(0);
  }

  /** Stops taking jobs; running ones are given back to the queue. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const c of this.controllers) c.abort(new Stopping('the service is stopping'));
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.takeWhileFree(), ms);
    this.timer.unref();
  }

  private async takeWhileFree(): Promise<void> {
    if (this.taking || this.stopped) return;
    this.taking = true;
    try {
      await this.sweep();
      while (!this.stopped && this.running < this.deps.concurrency) {
        const taken = await this.deps.store.takeJob(await this.deps.owner.current(), this.now().getTime());
        if (!taken) break;
        this.launch(taken.job, taken.hold);
      }
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not look for queued plans; retrying at the next poll');
    } finally {
      this.taking = false;
      this.schedule(this.deps.pollMs);
    }
  }

  private async sweep(): Promise<void> {
    const nowMs = this.now().getTime();
    if (nowMs - this.lastSweepMs < 60_000) return;
    this.lastSweepMs = nowMs;
    const deleted = await this.deps.store.deleteFinishedJobs(nowMs - this.deps.retentionMs);
    if (deleted > 0) this.deps.logger.info({ deleted }, 'deleted finished asynchronous plans past JOB_RETENTION_DAYS');
  }

  private launch(job: Job, hold: JobHold): void {
    this.running++;
    const run = this.run(job, hold)
      .catch((err: unknown) => {
        this.deps.logger.error({ err, job: job.id }, 'asynchronous plan runner failed');
        return 'ended' as const;
      })
      .then((outcome) => {
        this.running--;
        this.inFlight.delete(run);
        // a job given back because the solver was full waits for the next poll, not a tight retry loop
        this.schedule(outcome === 'given back' ? this.deps.pollMs : 0);
      });
    this.inFlight.add(run);
  }

  /** Runs a job to its end, or gives it back to the queue. */
  private async run(job: Job, hold: JobHold): Promise<'ended' | 'given back'> {
    const { store, logger } = this.deps;
    if (job.cancelRequested) {
      await store.finishJob(hold, { status: 'cancelled', result: null }, this.now());
      return 'ended';
    }
    const controller = new AbortController();
    this.controllers.add(controller);
    const started = performance.now();
    const deadline = started + job.budgetMs + JOB_PREPARATION_MS;
    const best: Pick<JobProgress, 'improvements' | 'assigned' | 'objective'> = {
      improvements: 0,
      assigned: 0,
      objective: null,
    };
    const progress = (): JobProgress => ({
      elapsedMs: Math.round(performance.now() - started),
      budgetMs: job.budgetMs,
      ...best,
    });
    const onProgress = (p: FleetProgress): void => {
      best.improvements = p.improvements;
      best.assigned = p.assigned;
      best.objective = secondsToMin1(p.routeS);
    };
    // a cancel once the solver has a plan ends its search and keeps that plan; before, nothing is kept (refunded)
    const stop = new AbortController();
    const cancel = (): void => {
      if (best.improvements > 0) stop.abort();
      else controller.abort(new Cancelled('cancelled by its key'));
    };
    const watch = setInterval(
      () => void this.check(hold, progress(), controller, cancel),
      this.deps.progressMs ?? 1_000,
    );
    const context: CallContext = {
      sandbox: job.sandbox,
      requestId: job.id,
      signal: controller.signal,
      msLeft: () => deadline - performance.now(),
    };
    const timeout = setTimeout(
      () =>
        controller.abort(
          new DomainError(
            'optimization_failed',
            `The plan did not finish within ${job.budgetMs + JOB_PREPARATION_MS} ms. Nothing was charged.`,
          ),
        ),
      deadline - started,
    );
    try {
      const result = await untilAborted(
        this.deps.planner.plan(JSON.parse(job.requestBody) as PlanRequest, context, job.budgetMs, {
          onProgress,
          stop: stop.signal,
        }),
        controller.signal,
      );
      const final: JobProgress = { ...progress(), ...outcome(result) };
      await store.recordJobProgress(hold, JSON.stringify(final));
      const answer = {
        ...result,
        stopsCharged: job.sandbox ? 0 : job.stops,
        ...(job.sandbox ? { sandbox: true } : {}),
      };
      // cancelled with a plan: the plan is the result, and stays charged
      const status = stop.signal.aborted ? 'cancelled' : 'succeeded';
      await store.finishJob(hold, { status, result: JSON.stringify(answer) }, this.now());
      return 'ended';
    } catch (err) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : err;
      if (reason instanceof Lost) return 'ended';
      if (reason instanceof Stopping) {
        await store.releaseJob(hold);
        return 'given back';
      }
      if (reason instanceof Cancelled) {
        await store.finishJob(hold, { status: 'cancelled', result: null }, this.now());
        return 'ended';
      }
      if (reason instanceof DomainError && reason.code === 'overloaded') {
        // the solver is full right now: the job waits for its turn again
        await store.releaseJob(hold);
        return 'given back';
      }
      // the job's id is its request id: the one its logs carry
      const body =
        reason instanceof DomainError
          ? { ...reason.body(), requestId: job.id }
          : {
              error: 'internal_error',
              message: `The plan failed unexpectedly (job ${job.id}). Nothing was charged.`,
              requestId: job.id,
            };
      if (!(reason instanceof DomainError)) logger.error({ err: reason, job: job.id }, 'asynchronous plan failed');
      await store.finishJob(hold, { status: 'failed', error: JSON.stringify(body) }, this.now());
      return 'ended';
    } finally {
      clearInterval(watch);
      clearTimeout(timeout);
      this.controllers.delete(controller);
    }
  }

  /** Writes progress; aborts the job when it is no longer this runner's; `cancel` when its key cancelled it. */
  private async check(
    hold: JobHold,
    progress: JobProgress,
    controller: AbortController,
    cancel: () => void,
  ): Promise<void> {
    try {
      const seen = await this.deps.store.recordJobProgress(hold, JSON.stringify(progress));
      if (!seen.held) controller.abort(new Lost('another instance runs this job now'));
      else if (seen.cancelRequested) cancel();
    } catch (err) {
      this.deps.logger.warn({ err, job: hold.id }, 'could not record the progress of an asynchronous plan');
    }
  }
}

function outcome(result: PlanResult): Pick<JobProgress, 'assigned' | 'objective'> {
  return { assigned: result.totals.assigned, objective: result.totals.estimatedTimeMin };
}
