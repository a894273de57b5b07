/**
 * buildSchedule: one route's answer fields from the solver's times. The solver
 * computes every arrival, wait, start of service, lateness and the route's end
 * in whole seconds after the departure (solver-rs/src/schedule.rs); this turns
 * those offsets into UTC instants, reads deadlines on the Paris day, rounds
 * minutes and kilometres, and sums the legs' distances (the solver sees travel
 * times only). The rules are stated in words in SCHEDULE_RULES (src/schedule/index.ts).
 */
import type { DateTime } from 'luxon';
import type { RouteTimes } from '../solver/types.js';
import { deadlineInstant, formatUtc, utcClock } from './time.js';

/**
 * A square matrix over [start, stops…, end?] (index 0 = start, stop i at
 * index i + 1, end at index n + 1): either rows (`number[][]`, typed-array
 * rows) or one flat row-major array of size×size.
 */
export type MatrixLike = ArrayLike<ArrayLike<number>> | ArrayLike<number>;

export interface ScheduleStop {
  id: string;
  /** Spec deadline `HH:MM`, Europe/Paris (the instant `limite` of a late stop). */
  deadline?: string | undefined;
}

export interface ScheduleInput {
  /** The call's departure (resolveDeparture), truncated to the whole second here as well: the solver's times count from it. */
  departure: DateTime;
  /** Visiting order as 0-based indices into `stops`; a permutation of them. */
  order: readonly number[];
  stops: readonly ScheduleStop[];
  /** The solver's times of this order (SolveResult.times, routeTimes, FleetRoute.times). */
  times: RouteTimes;
  /** For the distance only: metres over [start, stops…, end?]. */
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
  const { stops, order, hasEnd, times } = input;
  const n = stops.length;
  if (!input.departure.isValid) throw new RangeError('buildSchedule: invalid departure');
  if (order.length !== n || new Set(order).size !== n || order.some((i) => !Number.isInteger(i) || i < 0 || i >= n)) {
    throw new RangeError('buildSchedule: order must be a permutation of the stop indices');
  }
  if (times.stops.length !== n)
    throw new RangeError(`buildSchedule: times for ${times.stops.length} stops, the route has ${n}`);
  const dist = matrixCell(input.distancesM, 'distancesM', n + 1 + (hasEnd ? 1 : 0));

  const departure = input.departure.toUTC().startOf('second');
  const at = utcClock(departure);
  // a day's stops share a few deadlines: each is resolved in Europe/Paris once
  const limits = new Map<string, string>();
  const limitOf = (deadline: string): string => {
    let limit = limits.get(deadline);
    if (limit === undefined) limits.set(deadline, (limit = formatUtc(deadlineInstant(deadline, departure))));
    return limit;
  };
  const schedule: ScheduleEntry[] = [];
  const late: LateStop[] = [];
  let metres = 0;
  let prev = 0; // matrix index of the start
  order.forEach((si, position) => {
    const stop = stops[si]!;
    const t = times.stops[position]!;
    metres += dist(prev, si + 1);
    prev = si + 1;
    const arrivee = at(t.arrivalS);
    schedule.push(
      t.waitS > 0 ? { colisId: stop.id, arrivee, serviceStart: at(t.startS) } : { colisId: stop.id, arrivee },
    );
    if (t.latenessS > 0) {
      if (stop.deadline === undefined)
        throw new RangeError(`buildSchedule: the solver found ${stop.id} late, and it has no deadline`);
      late.push({
        colisId: stop.id,
        arrivee,
        limite: limitOf(stop.deadline),
        retardMin: retardMinutes(t.latenessS),
      });
    }
  });
  if (hasEnd) metres += dist(prev, n + 1);

  return {
    departAt: at(times.departureS),
    schedule,
    returnAt: hasEnd ? at(times.endS) : null,
    lateStops: late.length > 0 ? late : null,
    totalDistanceKm: metresToKm(metres),
    estimatedTimeMin: secondsToMin1(times.durationS),
    totalLatenessS: times.latenessS,
    durationS: times.durationS,
  };
}
