/**
 * `bench:api -- --full-day STOPS:VANS:SHIPMENTS`: a delivery day with every constraint of a plan at once, and an
 * independent check of the answer's timelines. STOPS counts as billing does (a shipment is two), so
 * 1000:20:200 is 600 stops and 200 shipments. Every stop, pickup and delivery has two hard time windows (one in
 * the morning, one in the afternoon), service 2–5 min and a demand [1–30 kg, 1–3 parcels]; every van has a
 * 30-minute lunch break inside 11:30–14:00, [1200 kg, 120 parcels], one depot and back, a 07:00–19:00 shift.
 *
 * `checkFullDay` reads only the request and the answer's `steps` (not the solver's own checks): every
 * stop and shipment once (a shipment's two ends on one route, pickup first, or unassigned as a whole),
 * service starting inside one of the visit's windows, each break whole and starting inside its window,
 * the load within capacity after every step, the shift kept.
 */
import { DateTime } from 'luxon';
import type { PlanStep } from '../../src/api/plans/steps.js';
import { parisStops } from './paris-stops.js';
import { postPlan } from './plans-bench.js';
import { rng } from './rng.js';

const DEPOT = { latitude: 48.8566, longitude: 2.3522 };
const DAY = '2026-06-01';
const CAPACITY = [1200, 120];
const BREAK = { id: 'lunch', window: { start: '11:30', end: '14:00' }, durationSeconds: 1800 };
const SHIFT = { start: '07:00', end: '19:00' };

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

interface Window {
  start: string;
  end: string;
}
interface Visit {
  latitude: number;
  longitude: number;
  serviceSeconds: number;
  timeWindows: Window[];
}
interface FullDay {
  departureTime: string;
  vehicles: Array<{ id: string; capacity: number[] }>;
  stops: Array<Visit & { id: string; demand: number[] }>;
  shipments: Array<{ id: string; demand: number[]; pickup: Visit; delivery: Visit }>;
}

export function fullDay(stops: number, vans: number, shipments: number, seed = 1): FullDay {
  const r = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  // a morning window of 1–3 h starting 08:00–10:00, an afternoon one of 1–3 h starting 13:00–16:00
  const visit = (p: { latitude: number; longitude: number }): Visit => {
    const morning = int(8 * 60, 10 * 60);
    const afternoon = int(13 * 60, 16 * 60);
    return {
      latitude: p.latitude,
      longitude: p.longitude,
      serviceSeconds: int(120, 300),
      timeWindows: [
        { start: hhmm(morning), end: hhmm(morning + int(60, 180)) },
        { start: hhmm(afternoon), end: hhmm(afternoon + int(60, 180)) },
      ],
    };
  };
  const demand = () => [int(1, 30), int(1, 3)];
  const plain = stops - 2 * shipments;
  const points = parisStops(plain + 2 * shipments, seed);
  return {
    departureTime: `${DAY}T07:00:00+02:00`,
    vehicles: Array.from({ length: vans }, (_, k) => ({
      id: `van-${k + 1}`,
      start: DEPOT,
      end: DEPOT,
      shift: SHIFT,
      capacity: CAPACITY,
      breaks: [BREAK],
    })),
    stops: points.slice(0, plain).map((p) => ({ id: p.id, ...visit(p), demand: demand() })),
    shipments: Array.from({ length: shipments }, (_, k) => ({
      id: `ship-${k + 1}`,
      demand: demand(),
      pickup: visit(points[plain + 2 * k]!),
      delivery: visit(points[plain + 2 * k + 1]!),
    })),
  };
}

/** What the checker reads of a step of the answer. */
type CheckedStep = Pick<PlanStep, 'type' | 'id' | 'arrival' | 'serviceStart' | 'departure' | 'load'>;

export interface FullDayAnswer {
  routes: Array<{ vehicleId: string; steps: CheckedStep[] }>;
  unassigned: Array<{ id: string }>;
}

const paris = (time: string) => DateTime.fromISO(`${DAY}T${time}`, { zone: 'Europe/Paris' }).toMillis();
const inWindow = (at: number, w: Window) => paris(w.start) <= at && at <= paris(w.end);

/** Every hard rule the answer breaks, in words (empty: none). */
export function checkFullDay(day: FullDay, answer: FullDayAnswer): string[] {
  const problems: string[] = [];
  const windowsOf = new Map<string, Window[]>(day.stops.map((s) => [s.id, s.timeWindows]));
  for (const s of day.shipments) {
    windowsOf.set(`pickup ${s.id}`, s.pickup.timeWindows);
    windowsOf.set(`delivery ${s.id}`, s.delivery.timeWindows);
  }
  const seen = new Map<string, number>();
  const count = (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1);
  for (const route of answer.routes) {
    const where = `route of ${route.vehicleId}`;
    const picked = new Set<string>();
    let breaks = 0;
    for (const step of route.steps) {
      const arrival = Date.parse(step.arrival);
      const start = step.serviceStart === undefined ? arrival : Date.parse(step.serviceStart);
      if (step.load.some((l, d) => l < 0 || l > CAPACITY[d]!))
        problems.push(`${where}: load ${step.load} at ${step.id}`);
      if (arrival < paris(SHIFT.start) || Date.parse(step.departure) > paris(SHIFT.end) + 1000)
        problems.push(`${where}: ${step.id} outside the shift`);
      if (step.type === 'break') {
        breaks++;
        if (!inWindow(start, BREAK.window)) problems.push(`${where}: break starts outside its window`);
        if (Date.parse(step.departure) - start < BREAK.durationSeconds * 1000) problems.push(`${where}: short break`);
        continue;
      }
      if (step.type === 'start' || step.type === 'end') continue;
      const key = step.type === 'stop' ? step.id : `${step.type} ${step.id}`;
      count(key);
      if (step.type === 'pickup') picked.add(step.id);
      if (step.type === 'delivery' && !picked.has(step.id))
        problems.push(`${where}: ${step.id} delivered without its pickup before`);
      // the answer's times are whole seconds: a start inside a window may show up to a second past it
      const windows = windowsOf.get(key) ?? [];
      if (!windows.some((w) => inWindow(start, w) || inWindow(start - 999, w)))
        problems.push(`${where}: ${key} starts at ${new Date(start).toISOString()}, outside its windows`);
    }
    if (route.steps.some((s) => s.type !== 'start' && s.type !== 'end' && s.type !== 'break') && breaks !== 1)
      problems.push(`${where}: ${breaks} breaks instead of 1`);
  }
  for (const u of answer.unassigned) {
    const shipment = day.shipments.some((s) => s.id === u.id);
    if (shipment) {
      count(`pickup ${u.id}`);
      count(`delivery ${u.id}`);
    } else count(u.id);
  }
  for (const key of windowsOf.keys())
    if (seen.get(key) !== 1) problems.push(`${key} appears ${seen.get(key) ?? 0} times`);
  return problems;
}

/** `STOPS:VANS:SHIPMENTS` with 2·SHIPMENTS ≤ STOPS ≤ 1000 and VANS ≤ 50 (the synchronous caps). */
export function parseFullDaySpec(
  text: string,
  fail: (msg: string) => never,
): { stops: number; vans: number; shipments: number } {
  const [stops, vans, shipments, extra] = text.split(':').map(Number);
  const whole = [stops, vans, shipments].every((x) => Number.isInteger(x) && x! >= 0);
  if (!whole || extra !== undefined || stops! > 1000 || vans! < 1 || vans! > 50 || stops! - 2 * shipments! < 0)
    fail(`--full-day takes STOPS:VANS:SHIPMENTS with 2·SHIPMENTS ≤ STOPS ≤ 1000 and 1 ≤ VANS ≤ 50 (got "${text}")`);
  return { stops: stops!, vans: vans!, shipments: shipments! };
}

export interface FullDayCall {
  stops: number;
  vans: number;
  shipments: number;
  call: number;
  status: number;
  ms: number;
  assigned: number;
  vehiclesUsed: number;
  /** What checkFullDay found wrong (0 expected). */
  violations: number;
  firstViolations: string[];
  error?: string;
}

export async function benchFullDay(
  base: string,
  key: string,
  spec: { stops: number; vans: number; shipments: number },
  calls: number,
): Promise<FullDayCall[]> {
  const day = fullDay(spec.stops, spec.vans, spec.shipments);
  const body = JSON.stringify(day);
  const rows: FullDayCall[] = [];
  for (let call = 1; call <= calls; call++) {
    const { res, answer, ms } = await postPlan<
      FullDayAnswer & { totals?: { assigned: number; vehiclesUsed: number }; error?: string; message?: string }
    >(base, key, body);
    const problems = res.ok ? checkFullDay(day, answer) : [];
    rows.push({
      ...spec,
      call,
      status: res.status,
      ms: Math.round(ms),
      assigned: answer.totals?.assigned ?? 0,
      vehiclesUsed: answer.totals?.vehiclesUsed ?? 0,
      violations: problems.length,
      firstViolations: problems.slice(0, 3),
      ...(answer.error ? { error: `${answer.error}: ${answer.message}` } : {}),
    });
  }
  return rows;
}
