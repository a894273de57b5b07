/**
 * `bench:api -- --plans STOPS:VANS[,…]`: POST /api/v1/plans through the real HTTP server, one call
 * at a time, wall time per call as the client sees it, and the server's peak resident memory
 * (VmHWM of its process) after the calls. The day: STOPS stops drawn in bench:api's box south-west
 * of central Paris (parisStops), service 2–5 min, demands [1–30 kg, 1–3 parcels], 30 % of the stops
 * with a notBefore between 08:00 and 14:00, a third of the others with a soft deadline; VANS vans of
 * [1200 kg, 120 parcels] from one depot and back, on a 07:00–19:00 shift.
 */
import { readFileSync } from 'node:fs';
import type { PlanTotals } from '../../src/api/plans/types.js';
import { parisStops } from './paris-stops.js';
import { rng } from './rng.js';

const DEPOT = { latitude: 48.8566, longitude: 2.3522 };
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Variations of the day for solver benches (the same stops, services, demands and deadlines). */
export interface PlanDayOptions {
  /** false: no stop gets its notBefore. */
  windows?: boolean;
  /** [kg, parcels] of each van instead of [1200, 120]. */
  vanCapacity?: [number, number];
  /** Each van's costs (the plan then minimises their total once it serves every stop on time). */
  vanCosts?: { fixed: number; perHour: number; perKm: number };
}

export function planDay(stops: number, vans: number, seed = 1, options: PlanDayOptions = {}): object {
  const r = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  return {
    departureTime: '2026-06-01T07:00:00+02:00',
    vehicles: Array.from({ length: vans }, (_, k) => ({
      id: `van-${k + 1}`,
      start: DEPOT,
      end: DEPOT,
      shift: { start: '07:00', end: '19:00' },
      capacity: options.vanCapacity ?? [1200, 120],
      ...(options.vanCosts ? { costs: options.vanCosts } : {}),
    })),
    stops: parisStops(stops, seed).map((s) => {
      const notBefore = int(0, 9) < 3 ? hhmm(int(8 * 60, 14 * 60)) : undefined;
      const window =
        notBefore !== undefined
          ? options.windows === false
            ? {}
            : { notBefore }
          : int(0, 5) < 2
            ? { deadline: hhmm(int(9 * 60, 17 * 60)) }
            : {};
      return { ...s, serviceSeconds: int(120, 300), demand: [int(1, 30), int(1, 3)], ...window };
    }),
  };
}

/** Peak resident memory of a process (Linux VmHWM), in MB; null where /proc has none. */
export function peakRssMb(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

export interface PlanCall {
  stops: number;
  vans: number;
  call: number;
  status: number;
  ms: number;
  assigned: number;
  vehiclesUsed: number;
  /** The plan's objective after its vehicles: the routes' total time, in minutes. */
  estimatedTimeMin: number;
  totalDistanceKm: number;
  error?: string;
}

export function parsePlanSpecs(text: string, fail: (msg: string) => never): Array<{ stops: number; vans: number }> {
  return text.split(',').map((spec) => {
    const [stops, vans, extra] = spec.split(':').map(Number);
    if (
      extra !== undefined ||
      !Number.isInteger(stops) ||
      !Number.isInteger(vans) ||
      stops! < 2 ||
      stops! > 1000 ||
      vans! < 1 ||
      vans! > 50
    ) {
      fail(`--plans takes STOPS:VANS[,STOPS:VANS…] with 2 ≤ STOPS ≤ 1000 and 1 ≤ VANS ≤ 50 (got "${spec}")`);
    }
    return { stops: stops!, vans: vans! };
  });
}

/** One synchronous POST /api/v1/plans with a live key: the response, its JSON and the wall time as the client saw it. */
export async function postPlan<T>(
  base: string,
  key: string,
  body: string,
): Promise<{ res: Response; answer: T; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/plans`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body,
  });
  const answer = (await res.json()) as T;
  return { res, answer, ms: performance.now() - started };
}

export async function benchPlans(
  base: string,
  key: string,
  spec: { stops: number; vans: number },
  calls: number,
): Promise<PlanCall[]> {
  const body = JSON.stringify(planDay(spec.stops, spec.vans));
  const rows: PlanCall[] = [];
  for (let call = 1; call <= calls; call++) {
    const { res, answer, ms } = await postPlan<{
      totals?: Pick<PlanTotals, 'assigned' | 'vehiclesUsed' | 'estimatedTimeMin' | 'totalDistanceKm'>;
      error?: string;
    }>(base, key, body);
    rows.push({
      ...spec,
      call,
      status: res.status,
      ms: Math.round(ms),
      assigned: answer.totals?.assigned ?? 0,
      vehiclesUsed: answer.totals?.vehiclesUsed ?? 0,
      estimatedTimeMin: answer.totals?.estimatedTimeMin ?? 0,
      totalDistanceKm: answer.totals?.totalDistanceKm ?? 0,
      ...(answer.error ? { error: answer.error } : {}),
    });
  }
  return rows;
}
