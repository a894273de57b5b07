/**
 * Time rules of the schedule module: departure resolution, Europe/Paris wall
 * times (deadlines, departures without an offset) and UTC formatting.
 * The rules are stated in words in SCHEDULE_RULES (src/schedule/index.ts).
 */
import { DateTime, IANAZone } from 'luxon';
import { NO_DEADLINE } from '../solver/abi-constants.generated.js';

export const PARIS_ZONE = 'Europe/Paris';

/** Deadline value given to the solver for a stop without a deadline (the solver's). */
export { NO_DEADLINE };

const parisZone = IANAZone.create(PARIS_ZONE);

const MS_PER_MIN = 60_000;
const MS_PER_DAY = 86_400_000;

/**
 * `YYYY-MM-DDTHH:MM[:SS[.f…]]` with an optional `Z` or `±HH:MM`.
 * `T` and `Z` may be lower case (RFC 3339 allows it, as does AJV's date-time).
 * 1 to 9 fraction digits are accepted (Python's isoformat sends 6); they are
 * dropped, since departures are truncated to the whole second.
 */
const DEPARTURE_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))?$/;

const DEADLINE_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;

export interface WallTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/** How to choose between the two instants of a wall time repeated by an autumn change. */
export type OverlapRule = 'earlier' | 'later';

interface ParsedDeparture {
  wall: Required<WallTime>;
  /** Offset east of UTC in minutes; undefined when none was given (Paris wall time). */
  offsetMin: number | undefined;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
}

/** Epoch ms of a wall time read as if it were UTC (years 0000-0099 included). */
function wallAsUtcMs(w: WallTime): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second ?? 0, 0);
  return d.getTime();
}

function parseDeparture(s: string): ParsedDeparture | null {
  const m = DEPARTURE_RE.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMin: number | undefined;
  if (m[8] !== undefined) {
    offsetMin = 0;
  } else if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return { wall: { year, month, day, hour, minute, second }, offsetMin };
}

/**
 * True for `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an optional `Z`/`±HH:MM`
 * that names a real calendar date and time (no Feb 30, no 24:00, no leap
 * second 60). Meant as a custom AJV format for `departureTime`.
 */
export function isValidDepartureTime(s: unknown): boolean {
  return typeof s === 'string' && parseDeparture(s) !== null;
}

/**
 * The UTC instant of a Europe/Paris wall time.
 * - Normal time: the single instant.
 * - Autumn overlap (the wall time happens twice): the earlier or later instant, per `overlap`.
 * - Spring gap (the wall time does not exist): read with the offset in force
 *   before the change, i.e. shifted forward by the gap (02:30 → 03:30 CEST), as Luxon does.
 */
export function parisWallTimeToInstant(wall: WallTime, overlap: OverlapRule): DateTime {
  const wallMs = wallAsUtcMs(wall);
  const before = parisZone.offset(wallMs - MS_PER_DAY);
  const candidates = new Set([before, parisZone.offset(wallMs), parisZone.offset(wallMs + MS_PER_DAY)]);
  const instants: number[] = [];
  for (const off of candidates) {
    const t = wallMs - off * MS_PER_MIN;
    if (parisZone.offset(t) === off) instants.push(t);
  }
  instants.sort((a, b) => a - b);
  let ms: number;
  if (instants.length === 0) {
    ms = wallMs - before * MS_PER_MIN; // gap: shift forward
  } else {
    ms = overlap === 'earlier' ? instants[0]! : instants[instants.length - 1]!;
  }
  return DateTime.fromMillis(ms, { zone: 'utc' });
}

/**
 * The departure instant, in UTC, truncated to the whole second.
 * - undefined (or null): `now`.
 * - with `Z` or `±HH:MM`: that instant.
 * - without offset: Europe/Paris wall time; in the spring gap shifted forward
 *   by the gap (2026-03-29T02:30 → 03:30 CEST = 01:30Z); in the autumn overlap
 *   the earlier instant (2026-10-25T02:30 → 02:30 CEST = 00:30Z).
 * A departure in the past is valid. Throws RangeError on a string that
 * `isValidDepartureTime` rejects or an invalid `now`.
 */
export function resolveDeparture(departureTime: string | undefined, now: Date): DateTime {
  if (departureTime == null) {
    const t = now instanceof Date ? now.getTime() : NaN;
    if (!Number.isFinite(t)) throw new RangeError('resolveDeparture: invalid now');
    return DateTime.fromMillis(t, { zone: 'utc' }).startOf('second');
  }
  const p = parseDeparture(departureTime);
  if (!p) throw new RangeError(`resolveDeparture: invalid departureTime ${JSON.stringify(departureTime)}`);
  if (p.offsetMin === undefined) return parisWallTimeToInstant(p.wall, 'earlier');
  return DateTime.fromMillis(wallAsUtcMs(p.wall) - p.offsetMin * MS_PER_MIN, { zone: 'utc' });
}

/** True for a spec deadline `HH:MM` (24-hour). */
export function isValidDeadline(s: unknown): boolean {
  return typeof s === 'string' && DEADLINE_RE.test(s);
}

/**
 * The deadline instant (UTC): `HH:MM` as Europe/Paris wall time on the Paris
 * calendar day of the departure. Spring gap: shifted forward (02:30 → 03:30 CEST).
 * Autumn overlap: the later instant (02:30 CET), the most lenient one; it is
 * also the last moment a Paris clock shows that time.
 */
export function deadlineInstant(deadline: string, departure: DateTime): DateTime {
  return timeOfDayInstant(deadline, departure, 'later');
}

/**
 * A time of day `HH:MM` as Europe/Paris wall time on the Paris calendar day of `departure` (UTC).
 * Spring gap: shifted forward. Autumn overlap: per `overlap` — the later instant for the latest
 * moments (deadlines, a shift's end), the earlier one for the earliest (notBefore, a shift's start),
 * so both read the time leniently.
 */
export function timeOfDayInstant(time: string, departure: DateTime, overlap: OverlapRule): DateTime {
  const m = DEADLINE_RE.exec(time);
  if (!m) throw new RangeError(`deadline must be HH:MM, got ${JSON.stringify(time)}`);
  if (!departure.isValid) throw new RangeError('deadlineInstant: invalid departure');
  const day = departure.setZone(PARIS_ZONE);
  return parisWallTimeToInstant(
    { year: day.year, month: day.month, day: day.day, hour: Number(m[1]), minute: Number(m[2]) },
    overlap,
  );
}

/**
 * Seconds from the departure (truncated to the whole second) to the deadline
 * instant. Negative when the deadline is already past at departure: the stop
 * is then necessarily late.
 */
export function deadlineToOffsetS(deadline: string, departure: DateTime): number {
  const dep = departure.toUTC().startOf('second');
  return Math.round((deadlineInstant(deadline, dep).toMillis() - dep.toMillis()) / 1000);
}

/**
 * Deadline offset for the solver input: NO_DEADLINE without a deadline, else
 * `deadlineToOffsetS` (negative when already past: the solver's search counts
 * it from 0, which changes that stop's lateness by a constant, and reports the
 * lateness against the true instant).
 */
export function solverDeadlineOffsetS(deadline: string | undefined, departure: DateTime): number {
  if (deadline === undefined) return NO_DEADLINE;
  return deadlineToOffsetS(deadline, departure);
}

/**
 * `formatUtc(departure + offsetS)` for the many instants of one answer: the departure is read once and each
 * instant formatted with the built-in Date (UTC needs no zone rules). Luxon per instant was the largest part of
 * shaping a 1000-stop plan's answer on the main thread (#30); test/unit/schedule/time.test.ts checks both agree.
 */
export function utcClock(departure: DateTime): (offsetS: number) => string {
  if (!departure.isValid) throw new RangeError('utcClock: invalid departure');
  const baseMs = Math.floor(departure.toMillis() / 1000) * 1000;
  return (offsetS) => {
    const ms = Math.floor((baseMs + offsetS * 1000) / 1000) * 1000;
    return new Date(ms).toISOString().replace('.000Z', 'Z');
  };
}

/** UTC ISO 8601 with `Z`, whole seconds, e.g. `2026-06-01T06:00:00Z`. */
export function formatUtc(dt: DateTime): string {
  const s = dt.toUTC().startOf('second').toISO({ suppressMilliseconds: true });
  if (s === null) throw new RangeError('formatUtc: invalid DateTime');
  return s;
}
