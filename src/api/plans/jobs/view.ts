/** A job as the API shows it (GET /api/v1/jobs/{id}, its events, and DELETE's answer). */
import type { Job, JobStatus } from '../../../store/types.js';

/** What the runner writes while a job runs, and the API shows. */
export interface JobProgress {
  /** Milliseconds since the job's solve started (0 while queued). */
  elapsedMs: number;
  /** The solve's budget. */
  budgetMs: number;
  /** Best plans the solver has found so far (its first plan, after the construction, counts 1); 0 before. */
  improvements: number;
  /** Stops the best plan so far serves (the result's totals.assigned once it ends). */
  assigned: number;
  /**
   * The best plan so far's total route time in minutes, waits included (the result's totals.estimatedTimeMin once it
   * ends); null before the solver's first plan.
   */
  objective: number | null;
}

export interface JobView {
  id: string;
  status: JobStatus;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  progress: JobProgress;
  /** The PlanResponse: when the job succeeded, or was cancelled while running with a plan kept. */
  result?: unknown;
  /** The Error body: when the job failed. */
  error?: unknown;
}

export const jobLocation = (id: string): string => `/api/v1/jobs/${id}`;

const iso = (ms: number): string => new Date(ms).toISOString();

export function jobView(job: Job): JobView {
  const progress: JobProgress = job.progress
    ? (JSON.parse(job.progress) as JobProgress)
    : { elapsedMs: 0, budgetMs: job.budgetMs, improvements: 0, assigned: 0, objective: null };
  return {
    id: job.id,
    status: job.status,
    createdAt: iso(job.createdAtMs),
    ...(job.startedAtMs !== null ? { startedAt: iso(job.startedAtMs) } : {}),
    ...(job.finishedAtMs !== null ? { finishedAt: iso(job.finishedAtMs) } : {}),
    progress,
    ...(job.result !== null ? { result: JSON.parse(job.result) as unknown } : {}),
    ...(job.error !== null ? { error: JSON.parse(job.error) as unknown } : {}),
  };
}

/** A job that will change no more. */
export const isFinished = (status: JobStatus): boolean =>
  status === 'succeeded' || status === 'failed' || status === 'cancelled';
