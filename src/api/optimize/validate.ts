import { invalidRequest } from '../../errors.js';
import { addFormat, compileValidator } from '../../http/validate.js';
import { isValidDepartureTime } from '../../schedule/time.js';
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
