/**
 * Asynchronous plans, end to end through the real service (src/main.ts, its own SQLite database): each round
 * submits one day of STOPS stops and VANS vans (bench:api's day, scripts/lib/plans-bench.ts) with
 * `Prefer: respond-async` and `timeLimitSeconds`, follows its event stream, and prints one JSON line: the 202's
 * latency, the time from submit to the first progress event (a `running` job with elapsedMs > 0), to the solver's
 * first plan (progress.improvements > 0) and to the end event, the plan's figures, what the independent checks find
 * (every stop once, loads within capacity; then every hard rule re-timed leg by leg on the built-in travel model by
 * test/helpers/plan-invariants.ts: shifts, notBefore, schedules, totals; leg timings at stops within 5 m of another,
 * which the service makes one place, listed apart as `samePlace`), and the server's peak resident memory.
 *
 *   npm run --silent bench:jobs -- [--stops 1000] [--vans 50] [--seconds 30] [--rounds 1]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Billing } from '../src/billing/billing.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { createRoutingProvider, greatCircleM } from '../src/geo/index.js';
import { planProblems } from './lib/plan-invariants.js';
import { parseCliArgs } from './lib/cli-args.js';
import { peakRssMb, planDay } from './lib/plans-bench.js';
import { startServiceProcess } from './lib/service-process.js';

const USAGE = 'usage: npm run --silent bench:jobs -- [--stops 1000] [--vans 50] [--seconds 30] [--rounds 1]';
const { values } = parseCliArgs(
  {
    stops: { type: 'string', default: '1000' },
    vans: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '1' },
  },
  USAGE,
);
const stops = Number(values.stops);
const vans = Number(values.vans);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
if (![stops, vans, seconds, rounds].every((v) => Number.isInteger(v) && v > 0)) {
  process.stderr.write(`every option needs a whole number above 0\n${USAGE}\n`);
  process.exit(2);
}

interface Plan {
  routes: Array<{ order: string[]; load: number[] }>;
  unassigned: Array<{ id: string }>;
  totals: { assigned: number; vehiclesUsed: number; totalDistanceKm: number; estimatedTimeMin: number };
}

/** What can be checked from the answer alone: every stop exactly once, each load within its van's capacity. */
function countProblems(
  day: { stops: Array<{ id: string }>; vehicles: Array<{ capacity: number[] }> },
  plan: Plan,
): string[] {
  const seen = [...plan.routes.flatMap((r) => r.order), ...plan.unassigned.map((u) => u.id)];
  const problems: string[] = [];
  if (seen.length !== day.stops.length || new Set(seen).size !== day.stops.length)
    problems.push('a stop is missing or twice');
  plan.routes.forEach((r, i) => {
    if (r.load.some((l, d) => l > day.vehicles[i]!.capacity[d]!)) problems.push(`route ${i} over capacity`);
  });
  return problems;
}

/** Stops within 5 m of another stop: the service makes them one place (docs/api.md, "the same place"). */
function samePlaceStops(stops: Array<{ id: string; latitude: number; longitude: number }>): Set<string> {
  const cell = (x: number) => Math.floor(x / 0.0001); // about 11 m of latitude, 7 m of longitude
  const grid = new Map<string, typeof stops>();
  for (const s of stops) {
    const k = `${cell(s.latitude)},${cell(s.longitude)}`;
    grid.set(k, [...(grid.get(k) ?? []), s]);
  }
  const near = new Set<string>();
  for (const s of stops)
    for (let di = -1; di <= 1; di++)
      for (let dj = -1; dj <= 1; dj++)
        for (const o of grid.get(`${cell(s.latitude) + di},${cell(s.longitude) + dj}`) ?? [])
          if (o !== s && greatCircleM(s, o) <= 5) near.add(s.id);
  return near;
}

/**
 * The checker re-times each leg between the stops' own coordinates; the service times it from the place that
 * stands for stops within 5 m of each other. A leg problem at a stop that is, or follows, such a stop is that
 * rule, not a broken constraint: counted apart.
 */
function splitSamePlace(
  problems: string[],
  plan: Plan,
  near: Set<string>,
): { problems: string[]; samePlace: string[] } {
  const before = new Map<string, string | undefined>();
  for (const r of plan.routes) r.order.forEach((id, i) => before.set(id, r.order[i - 1]));
  const samePlace: string[] = [];
  const rest = problems.filter((p) => {
    const id = /(?:arrival at|durationS to) (\S+)/.exec(p)?.[1];
    const leg = /does not follow its leg|is not its leg/.test(p);
    if (!leg || id === undefined || !(near.has(id) || near.has(before.get(id) ?? ''))) return true;
    samePlace.push(p);
    return false;
  });
  return { problems: rest, samePlace };
}

const dir = mkdtempSync(join(tmpdir(), 'ros-bench-jobs-'));
const databasePath = join(dir, 'bench.db');
const seed = new SqliteStore(databasePath);
const { key } = await new Billing(seed, {
  limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
}).issueKey('live', { stops: 10_000_000 });
await seed.close();
const server = await startServiceProcess({ DATABASE_PATH: databasePath, LOG_LEVEL: 'warn', JOB_PROGRESS_MS: '250' });
const headers = { Authorization: `Bearer ${key}` };
try {
  for (let round = 1; round <= rounds; round++) {
    const day = planDay(stops, vans, round) as {
      stops: Array<{ id: string; latitude: number; longitude: number }>;
      vehicles: Array<{ capacity: number[] }>;
    };
    const submitted = performance.now();
    const res = await fetch(`${server.url}/api/v1/plans`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Prefer: 'respond-async' },
      body: JSON.stringify({ ...day, timeLimitSeconds: seconds }),
    });
    const accepted = (await res.json()) as { id: string; message?: string };
    const acceptMs = performance.now() - submitted;
    if (res.status !== 202) throw new Error(`the plan was not accepted: ${res.status} ${accepted.message}`);
    const stream = await fetch(`${server.url}/api/v1/jobs/${accepted.id}/events`, { headers });
    let firstProgressMs: number | null = null;
    // the solver's first plan (its construction), as the job reports it
    let firstPlanMs: number | null = null;
    type Ended = { status: string; result?: Plan; error?: { message: string } };
    let end = null as Ended | null;
    let buffer = '';
    const decoder = new TextDecoder();
    const reader = stream.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffer += decoder.decode(read.value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!data) continue;
        const job = JSON.parse(data) as { status: string; progress: { elapsedMs: number; improvements: number } };
        if (firstProgressMs === null && job.status === 'running' && job.progress.elapsedMs > 0)
          firstProgressMs = performance.now() - submitted;
        if (firstPlanMs === null && job.progress.improvements > 0) firstPlanMs = performance.now() - submitted;
        if (/^event: end$/m.test(block)) end = job as Ended;
      }
    }
    const endMs = performance.now() - submitted;
    const plan = end?.result;
    console.log(
      JSON.stringify({
        bench: 'jobs',
        round,
        stops,
        vans,
        budgetS: seconds,
        status: end?.status ?? 'no end event',
        acceptMs: Math.round(acceptMs),
        firstProgressMs: firstProgressMs === null ? null : Math.round(firstProgressMs),
        firstPlanMs: firstPlanMs === null ? null : Math.round(firstPlanMs),
        improvements: (end as { progress?: { improvements: number } } | null)?.progress?.improvements ?? null,
        endMs: Math.round(endMs),
        assigned: plan?.totals.assigned ?? null,
        vehiclesUsed: plan?.totals.vehiclesUsed ?? null,
        totalDistanceKm: plan?.totals.totalDistanceKm ?? null,
        ...(plan
          ? splitSamePlace(
              [...countProblems(day, plan), ...(await planProblems(day, plan, createRoutingProvider('haversine', {})))],
              plan,
              samePlaceStops(day.stops),
            )
          : { problems: [end?.error?.message ?? 'no plan'] }),
        peakRssMb: peakRssMb(server.child.pid!),
      }),
    );
  }
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
