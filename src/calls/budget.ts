/**
 * The one budget rule of every paid call's solve. Each endpoint sizes its solver's budget (optimize:
 * SOLVER_TIME_LIMIT_MS; plans: PLANS_SOLVER_MS_PER_STOP per stop, at least 200 ms, at most
 * PLANS_SOLVER_TIME_LIMIT_MS), and the solver gets all of it: geocoding and the travel matrix come on
 * top. Only when the request deadline (REQUEST_DEADLINE_MS) would pass first does it get less: what the
 * steps before it left of the deadline, less a twentieth of the budget kept for the answer, and never
 * less than a tenth of the budget (the deadline then answers 502, refunded, as for any call past it).
 */
export function solverTimeLimitMs(budgetMs: number, msLeftBeforeDeadline: number): number {
  return Math.round(Math.max(budgetMs / 10, Math.min(budgetMs, msLeftBeforeDeadline - answerAllowanceMs(budgetMs))));
}

/** What a solve leaves of the deadline for the answer: a twentieth of its budget. */
export function answerAllowanceMs(budgetMs: number): number {
  return budgetMs / 20;
}
