/**
 * The asynchronous-plan subject: a job per accepted call, its progress and its outcome. A job is created together
 * with its call's final charge (SettleCharge.job) and given back together with its failure.
 */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** A job as it is created at acceptance; the charge it carries is already final. */
export interface NewJob {
  id: string;
  keyId: number;
  /** The validated plan request, as JSON. */
  requestBody: string;
  budgetMs: number;
  /** Stops billed for it. */
  stops: number;
  /** The live key's debit (refunded if the job ends without a plan). */
  debitId?: number;
  /** The test key's sandbox call (its stops given back if the job ends without a plan). */
  sandboxReservationId?: number;
  createdAtMs: number;
}

export interface Job {
  id: string;
  keyId: number;
  status: JobStatus;
  requestBody: string;
  budgetMs: number;
  stops: number;
  /** A test key's job (free, counted against the sandbox day). */
  sandbox: boolean;
  createdAtMs: number;
  startedAtMs: number | null;
  finishedAtMs: number | null;
  /** Times the job was taken by a runner (more than 1: a runner died and another took it again). */
  attempts: number;
  cancelRequested: boolean;
  /** JSON, as the runner last wrote it. */
  progress: string | null;
  /** JSON PlanResponse: the plan (succeeded, or cancelled while running with a plan kept). */
  result: string | null;
  /** JSON error body (failed). */
  error: string | null;
}

/** A runner's hold on a running job: another owner or attempt means the job was taken again. */
export interface JobHold {
  id: string;
  owner: string;
  attempt: number;
}

export type JobEnd =
  | { status: 'succeeded'; result: string }
  | { status: 'failed'; error: string }
  /** Cancelled while running: the best plan found so far is kept (and charged), or none (refunded). */
  | { status: 'cancelled'; result: string | null };

export interface JobProgressOutcome {
  /** False when the job is no longer this runner's: it must stop and write nothing more. */
  held: boolean;
  cancelRequested: boolean;
}

export interface JobStore {
  /** A key's job; null when there is none with that id for that key. */
  job(keyId: number, id: string): Promise<Job | null>;
  /**
   * Takes the oldest waiting job for a runner: a queued one, or a running one whose runner's instance lease
   * ended or expired (it died). One job is never taken by two runners at once (row locks, SKIP LOCKED).
   */
  takeJob(owner: string, nowMs: number): Promise<{ job: Job; hold: JobHold } | null>;
  /** Gives a running job back to the queue (its runner cannot run it now, e.g. the solver is full or the process stops). */
  releaseJob(hold: JobHold): Promise<boolean>;
  /** Writes the runner's progress; says whether the job is still its own and whether a cancel was asked. */
  recordJobProgress(hold: JobHold, progress: string): Promise<JobProgressOutcome>;
  /**
   * Ends a running job, in one transaction with its refund when it ends without a plan (failed, or cancelled
   * before any plan existed). False, and nothing written, when the job is no longer this runner's.
   */
  finishJob(hold: JobHold, end: JobEnd, now: Date): Promise<boolean>;
  /**
   * A key cancels its job: a queued one ends at once (refunded), a running one is asked to stop (its runner
   * keeps its best plan); a finished one is left as it is. Null when the key has no such job.
   */
  cancelJob(keyId: number, id: string, now: Date): Promise<Job | null>;
  /** Jobs of a key not yet finished (queued or running). */
  unfinishedJobs(keyId: number): Promise<number>;
  /** Jobs waiting for a runner, all keys. */
  queuedJobs(): Promise<number>;
  /** Deletes jobs finished before `beforeMs` (retention). Returns how many. */
  deleteFinishedJobs(beforeMs: number): Promise<number>;
}
