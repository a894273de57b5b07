/**
 * The fleet problem's vehicle costs and balance term as solve_fleet's extra sections (solver-rs/src/abi.rs
 * EXTRA.VEHICLE_COSTS, EXTRA.BALANCE), and the checks the module cannot make on them. A problem without either
 * sends neither section: its plan is the one a module without them finds.
 */
import { BALANCE_FIELDS, EXTRA, Status, VEHICLE_COST_FIELDS } from './abi-constants.generated.ts';
import { invalid } from './marshal.ts';
import type { FleetProblem } from './fleet-types.ts';

const isCost = (x: unknown): boolean => Number.isSafeInteger(x) && (x as number) >= 0;

/** Throws BAD_NUMBER for a cost or balance value that is not a whole number >= 0 (a balance scale >= 1). */
export function checkCosts(p: FleetProblem): void {
  p.vehicles.forEach((v, k) => {
    const c = v.costs;
    if (c !== undefined && ![c.fixed ?? 0, c.perDuration ?? 0, c.perDistance ?? 0].every(isCost))
      throw invalid(Status.BAD_NUMBER, `vehicle ${k}: costs must be whole numbers >= 0`);
  });
  const b = p.objective?.balance;
  if (b !== undefined && !(isCost(b.stops) && isCost(b.duration) && isCost(b.durationScale) && b.durationScale >= 1))
    throw invalid(
      Status.BAD_NUMBER,
      'objective.balance: stops and duration must be whole numbers >= 0, durationScale >= 1',
    );
}

/** [tag, length, values] of the cost sections the problem needs (empty: none). */
export function costSections(p: FleetProblem): number[] {
  const out: number[] = [];
  if (p.vehicles.some((v) => v.costs !== undefined)) {
    out.push(EXTRA.VEHICLE_COSTS, VEHICLE_COST_FIELDS * p.vehicles.length);
    for (const { costs: c } of p.vehicles) out.push(c?.fixed ?? 0, c?.perDuration ?? 0, c?.perDistance ?? 0);
  }
  const b = p.objective?.balance;
  if (b !== undefined) out.push(EXTRA.BALANCE, BALANCE_FIELDS, b.stops, b.duration, b.durationScale);
  return out;
}
