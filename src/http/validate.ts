/**
 * One AJV instance for the whole service; every schema is compiled once at
 * start-up. Violations become 400 invalid_request with a message naming the field.
 */
import { Ajv, type ErrorObject, type Format } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { invalidRequest } from '../errors.js';

// ajv-formats is CommonJS; under ESM its default export may be wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export interface SchemaFormat {
  name: string;
  format: Format;
}

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, verbose: true, messages: true });
addFormats(ajv);
/** Our own annotation: the human wording of a constraint, e.g. "must be a time HH:MM (24-hour)". */
ajv.addVocabulary(['x-message', 'example']);

export function addFormat(format: SchemaFormat): void {
  ajv.addFormat(format.name, format.format);
}

export type Validator<T> = (value: unknown) => T;

export function compileValidator<T>(schema: object): Validator<T> {
  const validate = ajv.compile(schema);
  return (value: unknown): T => {
    if (validate(value)) return value as T;
    throw invalidRequest(describeAjvError(validate.errors ?? []));
  };
}

/** `/stops/3/deadline` → `stops[3].deadline`; the root is `body`. */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let path = '';
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  return path === '' ? 'body' : path;
}

const STRUCTURAL = new Set(['if', 'then', 'else', 'oneOf', 'anyOf', 'allOf', 'not']);

function describeAjvError(errors: ErrorObject[]): string {
  const error = errors.find((e) => !STRUCTURAL.has(e.keyword)) ?? errors[0];
  if (!error) return 'The request body is invalid.';
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-message'];
  const field = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${fieldPath(error.instancePath, String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${field} has an unknown property "${String(params.additionalProperty)}"`;
    case 'type':
      return `${field} must be ${article(String(params.type))}`;
    case 'minItems':
      return `${field} must contain at least ${String(params.limit)} items`;
    case 'maxItems':
      return `${field} must contain at most ${String(params.limit)} items`;
    case 'maxLength':
      return `${field} must be at most ${String(params.limit)} characters long`;
    case 'minLength':
      return `${field} must not be empty`;
    case 'minimum':
    case 'maximum':
      return typeof custom === 'string' ? `${field} ${custom}` : `${field} must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    default:
      if (typeof custom === 'string') return `${field} ${custom}`;
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
