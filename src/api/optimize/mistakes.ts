/**
 * The mistakes only an optimize body can make: its root fields under other
 * names (origin, destination, points …) and too few or too many stops. The
 * rules it shares with plans are src/calls/mistakes.ts.
 */
import { CALL_MISTAKES, isObject, lower } from '../../calls/mistakes.js';
import type { MistakeRule } from '../../http/validate.js';

/** Top-level fields under other names (origin, destination, points, departure_time …). */
const ROOT_SPELLINGS: Record<string, string[]> = {
  start: ['origin', 'depot', 'from', 'startlocation', 'startpoint', 'source', 'begin'],
  end: ['destination', 'to', 'endlocation', 'endpoint', 'return', 'returnto', 'finish'],
  stops: [
    'points',
    'locations',
    'jobs',
    'deliveries',
    'waypoints',
    'visits',
    'shipments',
    'orders',
    'addresses',
    'stop',
    'colis',
    'parcels',
  ],
  departureTime: ['departure', 'departuretime', 'departat', 'departureat', 'starttime', 'time', 'date', 'datetime'],
  avoidTolls: ['tolls', 'avoidtoll', 'notolls', 'avoidtolls', 'excludetolls'],
};

const rootSpellings: MistakeRule = (failure, body) => {
  if (!isObject(body)) return undefined;
  const isRootFailure =
    failure.path.length === 1 && (failure.keyword === 'required' || failure.keyword === 'additionalProperties');
  if (!isRootFailure) return undefined;
  for (const key of Object.keys(body)) {
    if (key in ROOT_SPELLINGS) continue;
    const field = Object.entries(ROOT_SPELLINGS).find(([, names]) => names.includes(lower(key)))?.[0];
    if (field && (failure.keyword === 'additionalProperties' ? failure.path[0] === key : failure.path[0] === field)) {
      return {
        message: `body has "${key}": use ${field} (the fields are start, end, stops, avoidTolls and departureTime)`,
        path: [key],
      };
    }
  }
  return undefined;
};

/** 0 or 1 stop, or more than 200 (a plan takes up to 1000). */
const stopCount: MistakeRule = (failure) => {
  if (failure.path.length !== 1 || failure.path[0] !== 'stops' || !Array.isArray(failure.value)) return undefined;
  const n = failure.value.length;
  if (failure.keyword === 'minItems') return { message: `${failure.message}: a route needs 2 to 200 stops (got ${n})` };
  if (failure.keyword === 'maxItems') {
    return {
      message: `${failure.message}: split the route into calls of at most 200 stops each, or send up to 1000 stops in one POST /api/v1/plans call (got ${n})`,
    };
  }
  return undefined;
};

/** Order matters: the first rule that recognises the failure writes the message. */
export const OPTIMIZE_MISTAKES: MistakeRule[] = [rootSpellings, stopCount, ...CALL_MISTAKES];
