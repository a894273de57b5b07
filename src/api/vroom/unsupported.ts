/**
 * The fields VROOM accepts that this service does not: never ignored, each answers 400 naming the field and what
 * to send instead. The schema leaves them out, so AJV reports them as unknown properties; this rule words them
 * (docs/api.md, "Coming from VROOM / openrouteservice", lists the same).
 */
import type { MistakeRule } from '../../http/validate.js';
import { fieldPath } from '../../http/validate.js';

const PER_TYPE =
  'per-vehicle-type times are not supported: send the service time in service (the same for every vehicle)';
const TASK = {
  setup_per_type: PER_TYPE,
  service_per_type: PER_TYPE,
};

/** Field → why it is refused and the fix, by where it sits (`vehicles[]`: any vehicle). */
export const UNSUPPORTED_FIELDS: Record<string, Record<string, string>> = {
  body: {
    matrix:
      'the top-level matrix is deprecated in VROOM and not supported: send matrices: {"car": {"durations": [[…]]}} (under the vehicles\' profile)',
  },
  'jobs[]': {
    ...TASK,
    amount: 'amount is deprecated in VROOM for jobs and not supported: send delivery (or pickup) instead',
  },
  'shipments[].pickup': TASK,
  'shipments[].delivery': TASK,
  'vehicles[].breaks[]': {
    max_load:
      "a break's max_load is not supported: leave it out (the break is taken whatever the load; a vehicle with more on board can be kept out with capacity)",
  },
};

const OTHER_OPTIONS = 'only options.g (geometry) and options.c (plan mode) are supported: leave the other options out';

/** ['vehicles', 2, 'breaks'] → 'vehicles[]'; ['matrices', 'car', 'x'] → 'matrices.*'. */
function parentKey(path: ReadonlyArray<string | number>): string {
  const parent = path.slice(0, -1);
  if (parent[0] === 'matrices' && parent.length === 2) return 'matrices.*';
  const key = parent.map((part) => (typeof part === 'number' ? '[]' : part)).join('.');
  return key === '' ? 'body' : key.replace(/\.\[\]/g, '[]');
}

export const unsupportedVroomField: MistakeRule = (failure) => {
  if (failure.keyword !== 'additionalProperties' || failure.path.length === 0) return undefined;
  const field = String(failure.path[failure.path.length - 1]);
  const parent = parentKey(failure.path);
  const why = UNSUPPORTED_FIELDS[parent]?.[field] ?? (parent === 'options' ? OTHER_OPTIONS : undefined);
  if (!why) return undefined;
  return { message: `${fieldPath(failure.path)}: ${why}.` };
};
