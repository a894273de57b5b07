/**
 * `bench:api -- --plans STOPS:VANS --budgets-ms 2000,10000`: the same days under several solve budgets, one
 * server per budget (PLANS_SOLVER_TIME_LIMIT_MS = the budget, PLANS_SOLVER_MS_PER_STOP high enough that the
 * budget is what every plan gets), and how far each budget's plans are from the longest budget's: vehicles
 * used, then the routes' total time — the service objective's order.
 */
import { setTimeout } from 'node:timers/promises';
import { benchPlans, type PlanCall } from './plans-bench.js';
import { startServiceProcess } from './service-process.js';

export interface BudgetCall extends PlanCall {
  budgetMs: number;
}

/** What the comparison reads of a plan under a budget. */
export type BudgetRow = Pick<
  BudgetCall,
  'stops' | 'vans' | 'status' | 'budgetMs' | 'vehiclesUsed' | 'estimatedTimeMin'
>;

export interface BudgetGap {
  stops: number;
  vans: number;
  budgetMs: number;
  /** Means over the calls. */
  vehiclesUsed: number;
  estimatedTimeMin: number;
  referenceBudgetMs: number;
  referenceVehiclesUsed: number;
  referenceTimeMin: number;
  /** Total time above the reference's, in per cent (negative: better). */
  timeGapPct: number;
  /** No more vehicles than the reference, and the time within 1 % of it (or fewer vehicles). */
  withinOnePercent: boolean;
}

const MAX_BUDGET_MS = 600_000;

export function parseBudgets(text: string, fail: (msg: string) => never): number[] {
  const budgets = text.split(',').map(Number);
  if (budgets.some((b) => !Number.isInteger(b) || b < 10 || b > MAX_BUDGET_MS))
    fail(`--budgets-ms takes whole milliseconds from 10 to ${MAX_BUDGET_MS}, comma-separated (got "${text}")`);
  return [...new Set(budgets)].sort((a, b) => a - b);
}

export async function benchBudgets(
  env: Record<string, string>,
  key: string,
  specs: ReadonlyArray<{ stops: number; vans: number }>,
  budgets: readonly number[],
  calls: number,
  /** Ms to wait after each server is up, before its first call. */
  settleMs: number,
  onRow: (row: BudgetCall) => void,
): Promise<BudgetCall[]> {
  const rows: BudgetCall[] = [];
  for (const budgetMs of budgets) {
    const server = await startServiceProcess({
      ...env,
      PLANS_SOLVER_TIME_LIMIT_MS: String(budgetMs),
      PLANS_SOLVER_MS_PER_STOP: String(MAX_BUDGET_MS / 10),
    });
    try {
      if (settleMs > 0) await setTimeout(settleMs);
      for (const spec of specs) {
        for (const call of await benchPlans(server.url, key, spec, calls)) {
          const row = { ...call, budgetMs };
          rows.push(row);
          onRow(row);
        }
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }
  return rows;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Each (day, budget) against the longest budget's plans of the same day; failed calls are left out. */
export function budgetGaps(rows: readonly BudgetRow[]): BudgetGap[] {
  const ok = rows.filter((r) => r.status === 200);
  const days = [...new Set(ok.map((r) => `${r.stops}:${r.vans}`))];
  return days.flatMap((day) => {
    const ofDay = ok.filter((r) => `${r.stops}:${r.vans}` === day);
    const budgets = [...new Set(ofDay.map((r) => r.budgetMs))].sort((a, b) => a - b);
    const summary = (budgetMs: number) => {
      const calls = ofDay.filter((r) => r.budgetMs === budgetMs);
      return {
        vehiclesUsed: mean(calls.map((r) => r.vehiclesUsed)),
        estimatedTimeMin: mean(calls.map((r) => r.estimatedTimeMin)),
      };
    };
    const referenceBudgetMs = budgets.at(-1)!;
    const ref = summary(referenceBudgetMs);
    return budgets.map((budgetMs) => {
      const s = summary(budgetMs);
      const timeGapPct = ((s.estimatedTimeMin - ref.estimatedTimeMin) / ref.estimatedTimeMin) * 100;
      return {
        stops: ofDay[0]!.stops,
        vans: ofDay[0]!.vans,
        budgetMs,
        ...s,
        referenceBudgetMs,
        referenceVehiclesUsed: ref.vehiclesUsed,
        referenceTimeMin: ref.estimatedTimeMin,
        timeGapPct,
        withinOnePercent: s.vehiclesUsed < ref.vehiclesUsed || (s.vehiclesUsed === ref.vehiclesUsed && timeGapPct <= 1),
      };
    });
  });
}
