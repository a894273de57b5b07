export type SolverErrorCode =
  /** The problem is invalid (see `status` / `statusName`). */
  | 'invalid_input'
  /** The WebAssembly code trapped; the worker was given a fresh instance. */
  | 'trap'
  /** A worker thread died or could not start. */
  | 'worker_failed'
  /** The pool's queue is full. */
  | 'queue_full'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The pool is closed. */
  | 'closed'
  /** The module could not be read or compiled, or has the wrong ABI. */
  | 'load_failed'
  /** The module is older than what the call needs (a plan on a module of ABI < 3). */
  | 'unsupported';

export class SolverError extends Error {
  readonly code: SolverErrorCode;
  /** ABI status code for 'invalid_input'. */
  readonly status?: number;
  readonly statusName?: string;

  constructor(code: SolverErrorCode, message: string, status?: number, statusName?: string) {
    super(message);
    this.name = 'SolverError';
    this.code = code;
    if (status !== undefined) this.status = status;
    if (statusName !== undefined) this.statusName = statusName;
  }
}
