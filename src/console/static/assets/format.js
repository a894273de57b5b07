// Formatting helpers; every time shown is Europe/Paris local time.
export const PARIS = 'Europe/Paris';

const timeFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: PARIS,
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: PARIS,
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const partsFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: PARIS,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const secondsFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: PARIS,
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const integer = new Intl.NumberFormat('en-GB');

/**
 * Attributes of a time field: text holding HH:MM, 24-hour, as the API takes it. Not <input type="time">,
 * which the browser shows in the reader's locale (08:00 AM under an "HH:MM" label in en-US).
 */
export const TIME_INPUT = {
  type: 'text',
  inputmode: 'numeric',
  pattern: '([01][0-9]|2[0-3]):[0-5][0-9]',
  maxlength: '5',
  placeholder: 'HH:MM',
  title: 'HH:MM, 24-hour, Paris time',
  spellcheck: 'false',
  autocomplete: 'off',
};

/** "08:42" in Paris. */
export function parisTime(value) {
  return timeFormat.format(new Date(value));
}

/** "08:15:40" in Paris. */
export function parisTimeWithSeconds(value) {
  return secondsFormat.format(new Date(value));
}

/**
 * A time at a stop, rounded up to the minute: 08:15:40 → "08:16". Lateness is rounded up the same way
 * (retardMin = ceil(seconds late / 60)), so a stop shown arriving at or before its deadline minute is on
 * time, and one shown after it is late by exactly the difference (truncated, 08:15:40 read "08:15" and
 * "late by 1 min" for an 08:15 deadline).
 */
export function parisTimeUp(value) {
  return parisTime(Math.ceil(new Date(value).getTime() / 60_000) * 60_000);
}

/** "Mon 23 Nov, 08:00" in Paris. */
export function parisDateTime(value) {
  return dateTimeFormat.format(new Date(value));
}

/** The Paris wall-clock fields of an instant. */
export function parisParts(value) {
  const parts = Object.fromEntries(partsFormat.formatToParts(new Date(value)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** "2026-11-23" (the Paris calendar day of an instant). */
export function parisDay(value) {
  const p = parisParts(value);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** Offset of Paris from UTC at an instant, in ms (3 600 000 in winter, 7 200 000 in summer). */
function parisOffsetMs(ms) {
  const p = parisParts(ms);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** The instant of a Paris wall-clock time (fine for midnight and daytime hours; DST gaps are at 02:00–03:00). */
export function parisWallClockToInstant(year, month, day, hour = 0, minute = 0) {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  let instant = guess - parisOffsetMs(guess);
  instant = guess - parisOffsetMs(instant);
  return new Date(instant);
}

/** When the sandbox day ends: the next midnight in Paris. */
export function nextParisMidnight(now = new Date()) {
  const p = parisParts(now);
  const tomorrow = new Date(Date.UTC(p.year, p.month - 1, p.day + 1));
  return parisWallClockToInstant(tomorrow.getUTCFullYear(), tomorrow.getUTCMonth() + 1, tomorrow.getUTCDate());
}

/** Value for <input type="datetime-local">: "YYYY-MM-DDTHH:MM" of tomorrow at hh:mm, Paris. */
export function parisTomorrowAt(hour, minute = 0, now = new Date()) {
  const p = parisParts(now);
  const tomorrow = new Date(Date.UTC(p.year, p.month - 1, p.day + 1));
  const pad = (n) => String(n).padStart(2, '0');
  return `${tomorrow.getUTCFullYear()}-${pad(tomorrow.getUTCMonth() + 1)}-${pad(tomorrow.getUTCDate())}T${pad(hour)}:${pad(minute)}`;
}

/** "1 h 02 min", "45 min", "40 s". */
export function duration(minutes) {
  const totalSeconds = Math.round(minutes * 60);
  if (totalSeconds < 60) return `${totalSeconds} s`;
  const totalMinutes = Math.round(totalSeconds / 60);
  const h = Math.floor(totalMinutes / 60);
  const m = totalMinutes % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min`;
}

/** "in 5 h 12 min" from now until an instant. */
export function fromNow(target, now = new Date()) {
  const minutes = Math.max(0, Math.ceil((new Date(target).getTime() - now.getTime()) / 60000));
  return `in ${duration(minutes)}`;
}

export function count(n) {
  return integer.format(n);
}

export function money(cents, currency) {
  try {
    return new Intl.NumberFormat('en-GB', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}
