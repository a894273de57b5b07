/**
 * API benchmark: starts the service as a child process (default settings, a
 * temp database), then drives POST /api/v1/optimize with autocannon on
 * loopback for 10-, 50- and 200-stop coordinate requests at concurrency 1 and 8. With --plans, it drives
 * POST /api/v1/plans instead, one call at a time (scripts/lib/plans-bench.ts): wall time per call and the
 * server's peak RSS. With --full-day STOPS:VANS:SHIPMENTS, the same for a day with every constraint at once
 * (scripts/lib/full-day.ts: shipments, a lunch break per van, two hard windows per visit), each answer checked
 * independently from its steps (violations: 0 expected). With --budgets-ms, the --plans days under each solve
 * budget, one server per budget, and each budget's plans against the longest one's (scripts/lib/plans-budgets.ts);
 * --settle-ms waits that long after each server is up before its first call (a service that has been running a
 * while: its start-up solver warm-up done), 0 by default (the first call comes as the server opens).
 *
 *   npm run --silent bench:api -- [--duration S] [--sizes 10,50,200] [--connections 1,8] [--json]
 *   npm run --silent bench:api -- --plans 1000:20[,STOPS:VANS…] [--calls 3] [--json]
 *   npm run --silent bench:api -- --full-day 1000:20:200 [--calls 3] [--json]
 *   npm run --silent bench:api -- --plans 1000:20 --budgets-ms 2000,10000 [--calls 3] [--settle-ms MS] [--json]
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Billing } from '../src/billing/billing.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { startServiceProcess } from './lib/service-process.js';
import { parseCliArgs } from './lib/cli-args.js';
import { parisStops } from './lib/paris-stops.js';
import { benchPlans, parsePlanSpecs, peakRssMb, type PlanCall } from './lib/plans-bench.js';
import { benchFullDay, parseFullDaySpec } from './lib/full-day.js';
import { benchBudgets, budgetGaps, parseBudgets } from './lib/plans-budgets.js';

const USAGE =
  'usage: npm run --silent bench:api -- [--duration S] [--sizes 10,50,200] [--connections 1,8] [--json]\n' +
  '       npm run --silent bench:api -- --plans STOPS:VANS[,STOPS:VANS…] [--calls N] [--json]\n' +
  '       npm run --silent bench:api -- --full-day STOPS:VANS:SHIPMENTS [--calls N] [--json]\n' +
  '       npm run --silent bench:api -- --plans STOPS:VANS[,…] --budgets-ms MS,MS[,…] [--calls N] [--settle-ms MS] [--json]';
const { values } = parseCliArgs(
  {
    duration: { type: 'string', default: '10' },
    sizes: { type: 'string', default: '10,50,200' },
    connections: { type: 'string', default: '1,8' },
    json: { type: 'boolean', default: false },
    plans: { type: 'string' },
    'full-day': { type: 'string' },
    calls: { type: 'string', default: '3' },
    'budgets-ms': { type: 'string' },
    'settle-ms': { type: 'string', default: '0' },
  },
  USAGE,
);
const usageError = (msg: string): never => {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
};
const fullDaySpec = values['full-day'] === undefined ? null : parseFullDaySpec(values['full-day'], usageError);
const planSpecs = values.plans === undefined ? (fullDaySpec ? [] : null) : parsePlanSpecs(values.plans, usageError);
const planCalls = Number(values.calls);
if (!Number.isInteger(planCalls) || planCalls < 1)
  usageError(`--calls takes a whole number ≥ 1 (got "${values.calls}")`);
const budgets = values['budgets-ms'] === undefined ? null : parseBudgets(values['budgets-ms'], usageError);
if (budgets && (!planSpecs || fullDaySpec)) usageError('--budgets-ms goes with --plans (and not --full-day)');
const settleMs = Number(values['settle-ms']);
if (!Number.isInteger(settleMs) || settleMs < 0 || settleMs > 600_000)
  usageError(`--settle-ms takes whole milliseconds from 0 to 600000 (got "${values['settle-ms']}")`);
if (settleMs > 0 && !budgets) usageError('--settle-ms goes with --budgets-ms');
const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
const databasePath = join(dir, 'bench.db');

const stopsAround = parisStops;

const seedStore = new SqliteStore(databasePath);
const { key } = await new Billing(seedStore, {
  limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
}).issueKey('live', { stops: 1_000_000_000 });
await seedStore.close();
if (budgets) {
  try {
    const calls = await benchBudgets(
      { DATABASE_PATH: databasePath, LOG_LEVEL: 'warn' },
      key,
      planSpecs!,
      budgets,
      planCalls,
      settleMs,
      (row) =>
        values.json
          ? console.log(JSON.stringify(row))
          : process.stderr.write(
              `  plan ${row.stops} stops × ${row.vans} vans at ${row.budgetMs} ms, call ${row.call}: ${row.ms} ms\n`,
            ),
    );
    const gaps = budgetGaps(calls);
    if (values.json) for (const g of gaps) console.log(JSON.stringify({ budgetGap: g }));
    else {
      console.log(
        'POST /api/v1/plans, live key, one call at a time, one server per budget (PLANS_SOLVER_TIME_LIMIT_MS)',
      );
      console.log('stops  vans  budget ms  vehicles  time min   vs longest budget');
      for (const g of gaps)
        console.log(
          `${String(g.stops).padStart(5)}  ${String(g.vans).padStart(4)}  ${String(g.budgetMs).padStart(9)}  ${g.vehiclesUsed.toFixed(1).padStart(8)}  ${g.estimatedTimeMin.toFixed(0).padStart(8)}   ${g.timeGapPct >= 0 ? '+' : ''}${g.timeGapPct.toFixed(2)} % time, ${(g.vehiclesUsed - g.referenceVehiclesUsed).toFixed(1)} vehicles${g.withinOnePercent ? ' (within 1 %)' : ''}`,
        );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
const server = await startServiceProcess({ DATABASE_PATH: databasePath, LOG_LEVEL: 'warn' });
const base = server.url;

interface Row {
  stops: number;
  connections: number;
  requests: number;
  errors: number;
  non2xx: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}
const rows: Row[] = [];
const planRows: PlanCall[] = [];
let peakMb: number | null = null;
const startMb = planSpecs ? peakRssMb(server.child.pid!) : null;
try {
  for (const spec of planSpecs ?? []) {
    for (const row of await benchPlans(base, key, spec, planCalls)) {
      planRows.push(row);
      if (values.json) console.log(JSON.stringify(row));
      else process.stderr.write(`  plan ${row.stops} stops × ${row.vans} vans, call ${row.call}: ${row.ms} ms\n`);
    }
  }
  for (const row of fullDaySpec ? await benchFullDay(base, key, fullDaySpec, planCalls) : []) {
    if (values.json) console.log(JSON.stringify(row));
    else
      console.log(
        `full day ${row.stops} stops (${row.shipments} shipments) × ${row.vans} vans, breaks, two windows per visit, call ${row.call}: ` +
          `status ${row.status}, ${row.ms} ms, ${row.assigned} assigned, ${row.vehiclesUsed} vehicles, ${row.violations} violations` +
          `${row.firstViolations.length ? ` (${row.firstViolations.join('; ')})` : ''}${row.error ? `, ${row.error}` : ''}`,
      );
  }
  peakMb = peakRssMb(server.child.pid!);
  for (const stops of planSpecs ? [] : values.sizes!.split(',').map(Number)) {
    const body = JSON.stringify({ start: { latitude: 48.8566, longitude: 2.3522 }, stops: stopsAround(stops, stops) });
    for (const connections of values.connections!.split(',').map(Number)) {
      const result = await autocannon({
        url: `${base}/api/v1/optimize`,
        method: 'POST',
        connections,
        duration: Number(values.duration),
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body,
      });
      rows.push({
        stops,
        connections,
        requests: result.requests.total,
        errors: result.errors,
        non2xx: result.non2xx,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
      });
      if (values.json) console.log(JSON.stringify(rows.at(-1)));
      else process.stderr.write(`  ${stops} stops × ${connections} connections done\n`);
    }
  }
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
if (planSpecs && values.json) console.log(JSON.stringify({ serverPeakRssMb: peakMb, serverReadyRssMb: startMb }));
if (planSpecs && !values.json) {
  console.log(
    'POST /api/v1/plans, live key, one call at a time, default settings (PLANS_SOLVER_TIME_LIMIT_MS, PLANS_SOLVER_MS_PER_STOP defaults)',
  );
  console.log('stops  vans  call  status  wall ms  assigned  vehicles');
  for (const r of planRows) {
    console.log(
      `${String(r.stops).padStart(5)}  ${String(r.vans).padStart(4)}  ${String(r.call).padStart(4)}  ${String(r.status).padStart(6)}  ${String(r.ms).padStart(7)}  ${String(r.assigned).padStart(8)}  ${String(r.vehiclesUsed).padStart(8)}${r.error ? `  ${r.error}` : ''}`,
    );
  }
  const mb = (x: number | null) => (x === null ? 'unknown' : `${x.toFixed(0)} MB`);
  console.log(`server peak RSS (VmHWM): ${mb(peakMb)} (${mb(startMb)} once ready, before the first plan)`);
}
if (!planSpecs && !values.json) {
  console.log(
    `POST /api/v1/optimize, live key, ${values.duration} s per cell, default settings (SOLVER_TIME_LIMIT_MS default)`,
  );
  console.log('stops  conc  requests  req/s   p50 ms  p99 ms  max ms  errors  non-2xx');
  for (const r of rows) {
    console.log(
      `${String(r.stops).padStart(5)}  ${String(r.connections).padStart(4)}  ${String(r.requests).padStart(8)}  ${r.rps.toFixed(1).padStart(6)}  ${String(r.p50).padStart(6)}  ${String(r.p99).padStart(6)}  ${String(r.max).padStart(6)}  ${String(r.errors).padStart(6)}  ${String(r.non2xx).padStart(7)}`,
    );
  }
}
