/**
 * One AJV instance for the whole service; every schema is compiled once at
 * start-up, and every format a schema names is registered here, with the
 * instance, before any schema is compiled. Violations become 400
 * invalid_request with a message naming the field and the expected form, and
 * `param`, the path of that field.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { invalidRequest } from '../errors.js';
import { isValidDepartureTime } from '../schedule/time.js';

// ajv-formats is CommonJS; under ESM its default export may be wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, verbose: true, messages: true });
addFormats(ajv);
/** A paid call's departureTime (src/calls/location-schema.ts): the forms docs/api.md lists, a date and time that exist. */
ajv.addFormat('departure-time', { type: 'string', validate: (s: string) => isValidDepartureTime(s) });
/**
 * Our own annotations: `x-message`, the human wording of a constraint (e.g. "must be a time HH:MM (24-hour)");
 * `x-body-size`, how the body limit counts a table of numbers (src/http/body-size.ts).
 */
ajv.addVocabulary(['x-message', 'x-body-size']);

/** The first violation, as the message describes it. */
export interface ValidationFailure {
  /** Path of the offending field inside the body: ['stops', 3, 'deadline']; [] is the body itself. */
  path: Array<string | number>;
  /** The AJV keyword that failed (`required`, `type`, `pattern`, …) or `oneOf` for a location with both shapes. */
  keyword: string;
  /** The value at `path` (undefined for a missing field). */
  value: unknown;
  /** What the schema expects, e.g. the type for `type`, the limit for `minItems`. */
  params: Record<string, unknown>;
  message: string;
}

/**
 * A rule that recognises a common mistake behind a failure and returns a
 * message naming the fix (and, when the culprit is another field, its path).
 */
export type MistakeRule = (
  failure: ValidationFailure,
  body: unknown,
) => { message: string; path?: Array<string | number> } | undefined;

export type Validator<T> = (value: unknown) => T;

export function compileValidator<T>(schema: object, rules: MistakeRule[] = []): Validator<T> {
  const validate = ajv.compile(schema);
  const allRules = [...rules, ...GENERIC_RULES];
  return (value: unknown): T => {
    if (validate(value)) return value as T;
    const failure = describeFailure(validate.errors ?? [], value);
    for (const rule of allRules) {
      const better = rule(failure, value);
      if (better) return fail(better.message, better.path ?? failure.path);
    }
    return fail(failure.message, failure.path);
  };
}

function fail(message: string, path: Array<string | number>): never {
  throw invalidRequest(message, path.length === 0 ? undefined : fieldPath(path));
}

/** ['stops', 3, 'deadline'] → `stops[3].deadline`; the root is `body`. */
export function fieldPath(path: Array<string | number>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out === '' ? 'body' : out;
}

/** `/stops/3/deadline` → ['stops', 3, 'deadline']. */
function pathOf(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

export function valueAt(root: unknown, path: Array<string | number>): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[part];
  }
  return node;
}

/**
 * Picks the error to report. For a `oneOf` of closed objects (a Location, a
 * Stop) it reports the branch the value was meant to be, told by the
 * properties only that branch has: with none of either, the last branch; with
 * some of both, the oneOf's own message ("not both").
 */
function describeFailure(errors: ErrorObject[], root: unknown): ValidationFailure {
  const oneOf = errors.find((e) => e.keyword === 'oneOf');
  let chosen = errors;
  if (oneOf) {
    const branches = oneOf.schema as Array<{ properties?: Record<string, unknown> }>;
    const value = valueAt(root, pathOf(oneOf.instancePath));
    const keys = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
    const own = branches.map((b, i) =>
      Object.keys(b.properties ?? {}).filter((p) =>
        branches.every((other, j) => j === i || !(p in (other.properties ?? {}))),
      ),
    );
    const present = own.map((props) => props.some((p) => keys.includes(p)));
    if (present.filter(Boolean).length > 1) {
      const custom = (oneOf.parentSchema as Record<string, unknown> | undefined)?.['x-message'];
      return {
        path: pathOf(oneOf.instancePath),
        keyword: 'oneOf',
        value,
        params: {},
        message: `${fieldPath(pathOf(oneOf.instancePath))} ${typeof custom === 'string' ? custom : 'must match exactly one shape'}`,
      };
    }
    const branch = present.indexOf(true) === -1 ? branches.length - 1 : present.indexOf(true);
    const prefix = `${oneOf.schemaPath}/${branch}/`;
    const inBranch = errors.filter((e) => e.schemaPath.startsWith(prefix));
    if (inBranch.length > 0) chosen = inBranch;
  }
  const error = chosen.find((e) => !STRUCTURAL.has(e.keyword)) ?? chosen[0];
  if (!error) return { path: [], keyword: 'unknown', value: root, params: {}, message: 'The request body is invalid.' };
  return describeError(error);
}

const STRUCTURAL = new Set(['if', 'then', 'else', 'oneOf', 'anyOf', 'allOf', 'not']);

function describeError(error: ErrorObject): ValidationFailure {
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-message'];
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const field = fieldPath(path);
  const at = (message: string, where = path, value: unknown = error.data): ValidationFailure => ({
    path: where,
    keyword: error.keyword,
    value,
    params,
    message,
  });
  switch (error.keyword) {
    case 'required': {
      const missing = [...path, String(params.missingProperty)];
      return at(`${fieldPath(missing)} is required`, missing, undefined);
    }
    case 'additionalProperties': {
      const unknown = [...path, String(params.additionalProperty)];
      return at(
        `${field} has an unknown property "${String(params.additionalProperty)}"`,
        unknown,
        (error.data as Record<string, unknown> | undefined)?.[String(params.additionalProperty)],
      );
    }
    case 'type':
      if (params.type === 'number' || params.type === 'integer')
        return at(`${field} ${numberForm(error.parentSchema as Schema)}${notANumber(error.data)}`);
      return at(`${field} must be ${article(String(params.type))}`);
    case 'minItems':
    case 'maxItems': {
      if (typeof custom === 'string') return at(`${field} ${custom}`);
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      const example = (error.parentSchema as Schema | undefined)?.examples;
      const eg =
        Array.isArray(example) && example.length > 0 ? `, e.g. ${JSON.stringify(example[0]).replace(/,/g, ', ')}` : '';
      return at(`${field} must contain ${bound} ${items(Number(params.limit))}${eg}`);
    }
    case 'maxLength':
      return at(`${field} must be at most ${String(params.limit)} characters long`);
    case 'minLength':
      return at(`${field} must not be empty`);
    case 'minimum':
    case 'maximum':
      return at(
        typeof custom === 'string'
          ? `${field} ${custom}`
          : `${field} must be ${String(params.comparison)} ${String(params.limit)}`,
      );
    case 'enum':
      return at(`${field} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`);
    default:
      return at(typeof custom === 'string' ? `${field} ${custom}` : `${field} ${error.message ?? 'is invalid'}`);
  }
}

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const items = (n: number): string => (n === 1 ? '1 item' : `${n} items`);

type Schema = Record<string, unknown>;

/** What a number field takes: its own wording ("must be a number from -90 to 90"), else its type and range. */
function numberForm(schema: Schema | undefined): string {
  const custom = schema?.['x-message'];
  if (typeof custom === 'string') return custom;
  const kind = schema?.type === 'integer' ? 'a whole number' : 'a number';
  const [min, max] = [schema?.minimum, schema?.maximum];
  if (typeof min === 'number' && typeof max === 'number') return `must be ${kind} from ${min} to ${max}`;
  if (typeof min === 'number') return `must be ${kind} of at least ${min}`;
  if (typeof max === 'number') return `must be ${kind} of at most ${max}`;
  return `must be ${kind}`;
}

/** Why the value sent is not such a number (a string that reads as one is the generic rule below). */
function notANumber(value: unknown): string {
  if (typeof value === 'number') {
    // JSON numbers past ±1.8e308 (1e400) parse as Infinity
    if (!Number.isFinite(value))
      return ': the number sent is beyond what JSON numbers can hold (±1.8e308, e.g. 1e400); send a finite number';
    return `, not ${value}`;
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (text !== '' && Number.isFinite(Number(text))) return '';
    return `, not the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}: strings are not numbers (NaN and Infinity do not exist in JSON); send a finite number without quotes`;
  }
  return `, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : article(typeof value)}`;
}

/** Mistakes any JSON API sees: numbers and booleans sent as strings. */
const GENERIC_RULES: MistakeRule[] = [
  (f) => {
    if (f.keyword !== 'type' || typeof f.value !== 'string') return undefined;
    const text = f.value.trim();
    if ((f.params.type === 'number' || f.params.type === 'integer') && text !== '' && Number.isFinite(Number(text))) {
      return { message: `${f.message}, not a string: write ${text} without quotes` };
    }
    if (f.params.type === 'boolean' && (text === 'true' || text === 'false')) {
      return { message: `${f.message}, not a string: write ${text} without quotes` };
    }
    return undefined;
  },
];
