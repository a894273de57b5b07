/**
 * buildSchedule: arrivals, departure/return times, lateness and totals of one
 * route, from the solver's visiting order and the travel matrix.
 * The rules are stated in words in SCHEDULE_RULES (src/schedule/index.ts).
 */
import type { DateTime } from 'luxon';
import { deadlineInstant, formatUtc, timeOfDayInstant } from './time.js';

/**
 * A square matrix over [start, stops…, end?] (index 0 = start, stop i at
 * index i + 1, end at index n + 1): either rows (`number[][]`, typed-array
 * rows) or one flat row-major array of size×size.
 */
export type MatrixLike = ArrayLike<ArrayLike<number>> | ArrayLike<number>;

export interface ScheduleStop {
  id: string;
  /** Time spent at the stop, seconds (spec: 0-3600); default 0. */
  serviceS?: number | undefined;
  /** Spec deadline `HH:MM`, Europe/Paris. */
  deadline?: string | undefined;
  /** Plans: earliest start of service `HH:MM`, Europe/Paris; a vehicle arriving earlier waits. */
  notBefore?: string | undefined;
}

export interface ScheduleInput {
  /** From resolveDeparture; truncated to the whole second here as well. */
  departure: DateTime;
  /** Visiting order as 0-based indices into `stops`; a permutation of them. */
  order: readonly number[];
  stops: readonly ScheduleStop[];
  durationsS: MatrixLike;
  distancesM: MatrixLike;
  hasEnd: boolean;
}

export interface ScheduleEntry {
  colisId: string;
  arrivee: string;
  /** Only when the vehicle waits for the stop's notBefore: the start of service, after the arrival. */
  serviceStart?: string;
}

export interface LateStop {
  colisId: string;
  arrivee: string;
  limite: string;
  retardMin: number;
}

export interface ScheduleResult {
  departAt: string;
  schedule: ScheduleEntry[];
  returnAt: string | null;
  lateStops: LateStop[] | null;
  totalDistanceKm: number;
  estimatedTimeMin: number;
  /** Sum over late stops of (arrival − deadline), whole seconds. */
  totalLatenessS: number;
  /** Departure → end arrival (closed) or → end of the last stop's service (open), whole seconds. */
  durationS: number;
}

type Cell = (from: number, to: number) => number;

function matrixCell(m: MatrixLike, name: string, minSize: number): Cell {
  const first = m.length > 0 ? m[0] : undefined;
  if (typeof first === 'number') {
    const flat = m as ArrayLike<number>;
    const size = Math.round(Math.sqrt(flat.length));
    if (size * size !== flat.length) throw new RangeError(`${name}: flat matrix length ${flat.length} is not a square`);
    if (size < minSize) throw new RangeError(`${name}: size ${size} < ${minSize}`);
    return (i, j) => check(name, i, j, flat[i * size + j]);
  }
  const rows = m as ArrayLike<ArrayLike<number>>;
  if (rows.length < minSize) throw new RangeError(`${name}: ${rows.length} rows < ${minSize}`);
  return (i, j) => check(name, i, j, rows[i]?.[j]);
}

function check(name: string, i: number, j: number, v: number | undefined): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new RangeError(`${name}[${i}][${j}] must be a finite number >= 0, got ${String(v)}`);
  }
  return v;
}

/** Kilometres from metres, rounded half up to 2 decimals (12 345 m → 12.35). */
export function metresToKm(m: number): number {
  return Math.round(m / 10) / 100;
}

/** Minutes from seconds, rounded half up to 1 decimal (3 723 s → 62.1). */
export function secondsToMin1(s: number): number {
  return Math.round(s / 6) / 10;
}

/** Whole minutes late: ceil(seconds / 60); 1 s late → 1. */
export function retardMinutes(lateS: number): number {
  return Math.ceil(lateS / 60);
}

export function buildSchedule(input: ScheduleInput): ScheduleResult {
  const { stops, order, hasEnd } = input;
  const n = stops.length;
  if (!input.departure.isValid) throw new RangeError('buildSchedule: invalid departure');
  if (order.length !== n || new Set(order).size !== n || order.some((i) => !Number.isInteger(i) || i < 0 || i >= n)) {
    throw new RangeError('buildSchedule: order must be a permutation of the stop indices');
  }
  const size = n + 1 + (hasEnd ? 1 : 0);
  const dur = matrixCell(input.durationsS, 'durationsS', size);
  const dist = matrixCell(input.distancesM, 'distancesM', size);

  const departure = input.departure.toUTC().startOf('second');
  const schedule: ScheduleEntry[] = [];
  const late: LateStop[] = [];
  let t = 0; // seconds after departure
  let metres = 0;
  let totalLatenessS = 0;
  let prev = 0; // matrix index of the start

  for (const si of order) {
    const stop = stops[si]!;
    const node = si + 1;
    t += Math.round(dur(prev, node));
    metres += dist(prev, node);
    const arrival = departure.plus({ seconds: t });
    const arrivee = formatUtc(arrival);
    const entry: ScheduleEntry = { colisId: stop.id, arrivee };
    if (stop.notBefore !== undefined) {
      const waitS = Math.round((timeOfDayInstant(stop.notBefore, departure, 'earlier').toMillis() - arrival.toMillis()) / 1000);
      if (waitS > 0) {
        t += waitS;
        entry.serviceStart = formatUtc(departure.plus({ seconds: t }));
      }
    }
    schedule.push(entry);
    if (stop.deadline !== undefined) {
      const limit = deadlineInstant(stop.deadline, departure);
      const lateS = Math.round((arrival.toMillis() - limit.toMillis()) / 1000);
      if (lateS > 0) {
        totalLatenessS += lateS;
        late.push({ colisId: stop.id, arrivee, limite: formatUtc(limit), retardMin: retardMinutes(lateS) });
      }
    }
    const service = stop.serviceS ?? 0;
    if (!Number.isFinite(service) || service < 0) {
      throw new RangeError(`buildSchedule: serviceS of ${stop.id} must be a finite number >= 0`);
    }
    t += Math.round(service);
    prev = node;
  }

  let returnAt: string | null = null;
  if (hasEnd) {
    const end = n + 1;
    t += Math.round(dur(prev, end));
    metres += dist(prev, end);
    returnAt = formatUtc(departure.plus({ seconds: t }));
  }

  return {
    departAt: formatUtc(departure),
    schedule,
    returnAt,
    lateStops: late.length > 0 ? late : null,
    totalDistanceKm: metresToKm(metres),
    estimatedTimeMin: secondsToMin1(t),
    totalLatenessS,
    durationS: t,
  };
}
