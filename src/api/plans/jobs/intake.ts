/**
 * What an asynchronous plan's call orders before it is charged: a job with its budget (timeLimitSeconds, or the
 * synchronous budget rule), within the key's cap on unfinished jobs. The charge and the job are then made final
 * together (src/calls/charged-call.ts → Billing → the store's settleCharge).
 */
import { randomUUID } from 'node:crypto';
import type { JobOrder } from '../../../billing/billing.js';
import { DomainError } from '../../../errors.js';
import { rateLimited } from '../../../http/limits.js';
import { planStopCount, type PlanRequest } from '../schema.js';
import type { PlanOptimizer } from '../types.js';
import { checkSyncPlanSize } from '../validate.js';
import type { JobStore } from '../../../store/types.js';

export interface JobIntakeDeps {
  store: Pick<JobStore, 'unfinishedJobs'>;
  planner: Pick<PlanOptimizer, 'budgetMs'>;
  maxUnfinishedPerKey: number;
  clock: () => Date;
}

/** Seconds a key over its cap is told to wait: about one short job. */
const RETRY_AFTER_S = 5;

export class JobIntake {
  constructor(private readonly deps: JobIntakeDeps) {}

  /**
   * timeLimitSeconds is the budget of a job; a synchronous call has the budget rule's. A synchronous call keeps the
   * synchronous limits (1000 stops, 50 vehicles); past them it is told to send the plan asynchronously.
   */
  rejectSync(request: PlanRequest): void {
    checkSyncPlanSize(request, true);
    if (request.timeLimitSeconds !== undefined)
      throw new DomainError(
        'invalid_request',
        'timeLimitSeconds is for asynchronous plans only: send the header "Prefer: respond-async" (the answer is then 202 with the job to follow), or leave timeLimitSeconds out.',
        { extra: { param: 'timeLimitSeconds' } },
      );
  }

  async order(request: PlanRequest, keyId: number): Promise<JobOrder> {
    const unfinished = await this.deps.store.unfinishedJobs(keyId);
    if (unfinished >= this.deps.maxUnfinishedPerKey)
      throw rateLimited(
        `This key already has ${unfinished} asynchronous plans queued or running (at most ${this.deps.maxUnfinishedPerKey}); wait for one to finish, or cancel one with DELETE /api/v1/jobs/{id}. Nothing was charged.`,
        this.deps.maxUnfinishedPerKey,
        RETRY_AFTER_S,
      );
    const { timeLimitSeconds, ...plan } = request;
    return {
      id: randomUUID(),
      keyId,
      requestBody: JSON.stringify(plan),
      budgetMs: timeLimitSeconds !== undefined ? timeLimitSeconds * 1000 : this.deps.planner.budgetMs(request),
      stops: planStopCount(request),
      createdAtMs: this.deps.clock().getTime(),
    };
  }
}
