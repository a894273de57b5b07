import { compileValidator } from '../../http/validate.js';
import { checkUniqueIds } from '../../calls/request-checks.js';
import { OPTIMIZE_MISTAKES } from './mistakes.js';
import { optimizeRequestSchema, type OptimizeRequest } from './schema.js';

const validateShape = compileValidator<OptimizeRequest>(optimizeRequestSchema, OPTIMIZE_MISTAKES);

/** The schema, plus what JSON Schema cannot say: stop ids are unique within one call. */
export function validateOptimizeRequest(body: unknown): OptimizeRequest {
  const request = validateShape(body);
  checkUniqueIds(request.stops, 'stops', 'stop');
  return request;
}
