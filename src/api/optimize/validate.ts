import { invalidRequest } from '../../errors.js';
import { addFormat, compileValidator } from '../../http/validate.js';
import { isValidDepartureTime, resolveDeparture } from '../../schedule/time.js';
import { OPTIMIZE_MISTAKES } from './mistakes.js';
import { optimizeRequestSchema, type OptimizeRequest } from './schema.js';

addFormat({ name: 'departure-time', format: { type: 'string', validate: (s: string) => isValidDepartureTime(s) } });
const validateShape = compileValidator<OptimizeRequest>(optimizeRequestSchema, OPTIMIZE_MISTAKES);

/** The schema, plus what JSON Schema cannot say: stop ids are unique within one call. */
export function validateOptimizeRequest(body: unknown): OptimizeRequest {
  const request = validateShape(body);
  const firstIndexById = new Map<string, number>();
  request.stops.forEach((stop, index) => {
    const first = firstIndexById.get(stop.id);
    if (first !== undefined) {
      throw invalidRequest(`stops[${index}].id ${JSON.stringify(stop.id)} repeats stops[${first}].id: stop ids must be unique within one call`, `stops[${index}].id`);
    }
    firstIndexById.set(stop.id, index);
  });
  return request;
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
    throw invalidRequest(`departureTime must be within ${windowDays} days of now: from ${isoSeconds(earliest)} to ${isoSeconds(latest)}`);
  }
}
