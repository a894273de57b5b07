/**
 * What JSON Schema cannot say about a paid call's body, the same for every endpoint: ids unique within
 * the call, and a departureTime near enough to now.
 */
import { invalidRequest } from '../errors.js';
import { resolveDeparture } from '../schedule/time.js';

/** `items[i].id` unique within `field` (`stops`, `vehicles`); `what` names one item in the message. */
export function checkUniqueIds(items: ReadonlyArray<{ id: string }>, field: string, what: string): void {
  const firstIndexById = new Map<string, number>();
  items.forEach((item, index) => {
    const first = firstIndexById.get(item.id);
    if (first !== undefined) {
      throw invalidRequest(
        `${field}[${index}].id ${JSON.stringify(item.id)} repeats ${field}[${first}].id: ${what} ids must be unique within one call`,
        `${field}[${index}].id`,
      );
    }
    firstIndexById.set(item.id, index);
  });
}

const DAY_MS = 86_400_000;
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * departureTime must lie within `windowDays` days before or after `now`: plans are made for the coming
 * months and replayed for the past ones, and every instant of the answer stays a 4-digit-year date-time.
 */
export function checkDepartureWindow(departureTime: string | undefined, now: Date, windowDays: number): void {
  if (departureTime === undefined) return;
  const departure = resolveDeparture(departureTime, now).toMillis();
  const earliest = now.getTime() - windowDays * DAY_MS;
  const latest = now.getTime() + windowDays * DAY_MS;
  if (departure < earliest || departure > latest) {
    throw invalidRequest(
      `departureTime must be within ${windowDays} days of now: from ${isoSeconds(earliest)} to ${isoSeconds(latest)}`,
      'departureTime',
    );
  }
}
