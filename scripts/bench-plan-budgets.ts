/**
 * bench:api's plan day (scripts/lib/plans-bench.ts planDay: STOPS stops, VANS vans) made into the solver's problem
 * by the plans pipeline's own code (validation, layout, places, the built-in travel model, src/api/plans/problem.ts),
 * then solved in WebAssembly on this thread under each budget of CPU time (process.cpuUsage, so a shared machine's
 * load does not shorten a budget), for each module given. Each module first solves each day for a fixed number of
 * iterations, left out of the figures (scripts/lib/warm-up.ts: a cold module's first budget would pay for V8's
 * optimizing compiler). Prints one JSON line per solve, then each budget's plans against the same module's longest
 * budget (vehicles, then total route time: the service objective's order).
 *
 *   npm run --silent bench:plan-budgets -- [--plans 1000:20] [--budgets-ms 2000,10000] [--wasm A.wasm,B.wasm] [--json]
 *     [--seed S]                 the solver's seed (default 1)
 *     [--warm-up-iterations N]   the warm-up solve's iterations (default 300; 0: a 1 ms solve, too short to warm)
 *     [--no-windows]             no stop gets its notBefore (the day's deadlines stay): the fleet routes go through
 *                                the single-route engine at the end (docs/solver.md, route_polish)
 *     [--van-capacity KG,PARCELS] each van's capacity instead of 1200,120 (fewer, longer routes)
 *     [--van-costs FIXED,PER_HOUR,PER_KM] each van's costs (the objective becomes their total: compare the lines'
 *                                `objective`, the solver's cost of the plan; the gaps below still read vans, then time)
 *
 * bench:api --plans … --budgets-ms … measures the same through HTTP, in wall time.
 */
import { places } from '../src/calls/places.js';
import { HaversineProvider } from '../src/geo/index.js';
import { resolveDeparture } from '../src/schedule/index.js';
import { fleetProblem, planLayout } from '../src/api/plans/problem.js';
import { validatePlanRequest } from '../src/api/plans/validate.js';
import { DEFAULT_WASM_PATH } from '../src/solver/load.js';
import { loadBenchSolver, processCpuMs } from './lib/bench-solver-load.js';
import type { FleetProblem } from '../src/solver/fleet-types.js';
import { parseCliArgs } from './lib/cli-args.js';
import { parsePlanSpecs, planDay, type PlanDayOptions } from './lib/plans-bench.js';
import { WARM_UP_ITERATIONS, warmUp } from './lib/warm-up.js';
import { budgetGaps, parseBudgets, type BudgetRow } from './lib/plans-budgets.js';

const USAGE =
  'usage: npm run --silent bench:plan-budgets -- [--plans STOPS:VANS[,…]] [--budgets-ms MS,MS[,…]] [--wasm FILE[,FILE…]] [--seed S] [--warm-up-iterations N] [--no-windows] [--van-capacity KG,PARCELS] [--van-costs FIXED,PER_HOUR,PER_KM] [--json]';
const { values } = parseCliArgs(
  {
    plans: { type: 'string', default: '1000:20' },
    'budgets-ms': { type: 'string', default: '2000,10000' },
    wasm: { type: 'string', default: DEFAULT_WASM_PATH },
    json: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    'warm-up-iterations': { type: 'string', default: String(WARM_UP_ITERATIONS) },
    'no-windows': { type: 'boolean', default: false },
    'van-capacity': { type: 'string' },
    'van-costs': { type: 'string' },
  },
  USAGE,
);
const usageError = (msg: string): never => {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
};
const specs = parsePlanSpecs(values.plans!, usageError);
const budgets = parseBudgets(values['budgets-ms']!, usageError);
const modules = values.wasm!.split(',');
const seed = Number(values.seed);
if (!Number.isInteger(seed) || seed < 1 || seed > 0xffffffff) usageError(`--seed takes an integer from 1 to 2^32 - 1`);
const warmUpIterations = Number(values['warm-up-iterations']);
if (!Number.isInteger(warmUpIterations) || warmUpIterations < 0 || warmUpIterations > 100000)
  usageError(`--warm-up-iterations takes an integer from 0 to 100000 (got "${values['warm-up-iterations']}")`);
const capacity = values['van-capacity']?.split(',').map(Number);
if (capacity !== undefined && (capacity.length !== 2 || !capacity.every((x) => Number.isInteger(x) && x > 0)))
  usageError(`--van-capacity takes KG,PARCELS, two positive integers (got "${values['van-capacity']}")`);
const costs = values['van-costs']?.split(',').map(Number);
if (costs !== undefined && (costs.length !== 3 || !costs.every((x) => Number.isFinite(x) && x >= 0)))
  usageError(`--van-costs takes FIXED,PER_HOUR,PER_KM, three numbers ≥ 0 (got "${values['van-costs']}")`);
const dayOptions: PlanDayOptions = {
  windows: !values['no-windows'],
  ...(capacity ? { vanCapacity: capacity as [number, number] } : {}),
  ...(costs ? { vanCosts: { fixed: costs[0]!, perHour: costs[1]!, perKm: costs[2]! } } : {}),
};

async function problemOf(stops: number, vans: number): Promise<FleetProblem> {
  const request = validatePlanRequest(JSON.parse(JSON.stringify(planDay(stops, vans, 1, dayOptions))));
  const layout = planLayout(request);
  const located = places(layout.labelled.map((l) => l.location as { latitude: number; longitude: number }));
  const matrix = await new HaversineProvider().matrix(located.points, { avoidTolls: false });
  return fleetProblem(request, layout, located.index, matrix, resolveDeparture(request.departureTime, new Date()));
}

for (const wasm of modules) {
  const solver = loadBenchSolver(wasm, true, usageError);
  const rows: BudgetRow[] = [];
  for (const { stops, vans } of specs) {
    const problem = await problemOf(stops, vans);
    warmUp(solver, problem, warmUpIterations);
    for (const budgetMs of budgets) {
      const started = processCpuMs();
      const plan = solver.solveFleet(problem, { timeLimitMs: budgetMs, seed });
      const used = plan.routes.filter((r) => r.jobs.length > 0);
      const row: BudgetRow & { cpuMs: number; assigned: number; iterations: number; objective: number } = {
        stops,
        vans,
        status: 200,
        budgetMs,
        cpuMs: Math.round(processCpuMs() - started),
        assigned: used.reduce((n, r) => n + r.jobs.length, 0),
        vehiclesUsed: used.length,
        estimatedTimeMin: used.reduce((s, r) => s + r.duration, 0) / 60,
        iterations: plan.iterations,
        objective: plan.cost.main,
      };
      rows.push(row);
      if (values.json) console.log(JSON.stringify({ wasm, ...row }));
      else process.stderr.write(`  ${wasm}: ${stops} stops × ${vans} vans at ${budgetMs} CPU ms done\n`);
    }
  }
  for (const g of budgetGaps(rows)) {
    if (values.json) console.log(JSON.stringify({ wasm, budgetGap: g }));
    else
      console.log(
        `${wasm}  ${g.stops} stops × ${g.vans} vans  ${String(g.budgetMs).padStart(6)} CPU ms  ${g.vehiclesUsed} vehicles  ${g.estimatedTimeMin.toFixed(0)} min  ` +
          `${g.timeGapPct >= 0 ? '+' : ''}${g.timeGapPct.toFixed(2)} % time vs ${g.referenceBudgetMs} ms${g.withinOnePercent ? ' (within 1 %)' : ''}`,
      );
  }
}
