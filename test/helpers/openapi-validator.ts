/**
 * Checks a real HTTP answer against the OpenAPI document: the status is
 * declared for that operation (or covered by its `default`), every required
 * header is present and well-formed, and the JSON body matches the schema with
 * every object closed (a field the document does not declare is a problem).
 * The test server runs it on every /api/ answer the tests see.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;

export interface ObservedResponse {
  method: string;
  /** The path without the query string. */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
}

/** A deep copy where every object schema that lists properties also refuses others (unless it composes with allOf). */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== 'object') return node;
  const copy: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closeObjects(v)]));
  if (copy.properties && copy.additionalProperties === undefined && copy.allOf === undefined && copy.type === 'object')
    copy.additionalProperties = false;
  return copy;
}

/** Error schemas extend Error with allOf: close those at the level that lists every field. */
function closeAllOfErrors(node: Json, root: Json): Json {
  if (node.allOf && node.allOf.length === 1 && node.allOf[0].$ref === '#/components/schemas/Error') {
    const base = root.components.schemas.Error;
    return {
      ...base,
      properties: {
        ...base.properties,
        ...Object.fromEntries(
          Object.entries(node.properties ?? {}).map(([k, v]) => [k, { ...base.properties[k], ...(v as Json) }]),
        ),
      },
      required: [...new Set([...(base.required ?? []), ...(node.required ?? [])])],
      additionalProperties: false,
    };
  }
  return node;
}

export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly doc: Json;
  private readonly operations: Array<{ method: string; pattern: RegExp; template: string; operation: Json }>;

  constructor(document: object) {
    this.doc = closeObjects(document) as Json;
    for (const name of Object.keys(this.doc.components.schemas)) {
      this.doc.components.schemas[name] = closeAllOfErrors(this.doc.components.schemas[name], this.doc);
    }
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: this.doc.components });
    this.operations = [];
    const add = (template: string, item: Json) => {
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        if (item[method])
          this.operations.push({
            method: method.toUpperCase(),
            template,
            pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
            operation: item[method],
          });
      }
    };
    for (const [template, item] of Object.entries(this.doc.paths ?? {})) add(template, item as Json);
    // webhooks are keyed by name; x-endpoint says where this service receives them
    for (const item of Object.values<Json>(this.doc.webhooks ?? {})) {
      const endpoint = /^POST (\/\S+)$/.exec(item.post?.['x-endpoint'] ?? '')?.[1];
      if (endpoint) add(endpoint, item);
    }
  }

  /** The operations the document lists: "POST /api/v1/optimize" → its operationId. */
  listOperations(): Array<{ method: string; path: string; operationId: string; operation: Json }> {
    return this.operations.map((o) => ({
      method: o.method,
      path: o.template,
      operationId: o.operation.operationId,
      operation: o.operation,
    }));
  }

  /** Problems found, empty when the answer matches the document. Paths the document does not list are not checked. */
  check(observed: ObservedResponse): string[] {
    const label = `${observed.method} ${observed.path} → ${observed.status}`;
    const pathKnown = this.operations.some((o) => o.pattern.test(observed.path));
    if (!pathKnown) return [];
    const match = this.operations.find((o) => o.method === observed.method && o.pattern.test(observed.path));
    if (!match) {
      // a method the path does not have: answered with an Error body, 405 + Allow
      return observed.status === 405
        ? this.checkBody(label, { $ref: 'openapi#/components/schemas/Error' }, observed.body)
        : [`${label}: a path the document lists, a method it does not, answered ${observed.status} instead of 405`];
    }
    const responses: Json = match.operation.responses;
    const response: Json | undefined = responses[String(observed.status)] ?? responses.default;
    if (!response) return [`${label}: status not declared by ${match.operation.operationId}`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const definition: Json = header.$ref ? this.doc.components.headers[header.$ref.split('/').pop()] : header;
      const value = observed.headers.get(name);
      if (value === null) {
        if (definition.required) problems.push(`${label}: required header ${name} missing`);
        continue;
      }
      const type = definition.schema?.type;
      if (type === 'integer' && !/^\d+$/.test(value))
        problems.push(`${label}: header ${name} "${value}" is not an integer`);
      if (definition.schema?.enum && !definition.schema.enum.includes(value))
        problems.push(`${label}: header ${name} "${value}" not in ${definition.schema.enum}`);
    }
    const content: Json | undefined = response.content;
    if (!content) return problems;
    const contentType = observed.headers.get('content-type') ?? '';
    if (content['text/event-stream'] && !content['application/json']) {
      // a stream of events: its media type is checked, its text is the endpoint's tests' to read
      if (!contentType.startsWith('text/event-stream'))
        problems.push(`${label}: content-type ${contentType} is not text/event-stream`);
      return problems;
    }
    if (!/^application\/json/.test(contentType)) problems.push(`${label}: content-type ${contentType} is not JSON`);
    const schema = content['application/json']?.schema;
    if (schema) problems.push(...this.checkBody(label, schema, observed.body));
    // VROOM's error body (POST /api/v1/vroom) keeps the code in errorCode: its `error` is the message
    const errorBody = observed.body as { error?: unknown; errorCode?: unknown } | null;
    const code = errorBody?.errorCode ?? errorBody?.error;
    if (
      observed.status >= 400 &&
      typeof code === 'string' &&
      ERROR_CATALOGUE[code as ErrorCode]?.status !== observed.status
    ) {
      problems.push(
        `${label}: error code ${code} has status ${ERROR_CATALOGUE[code as ErrorCode]?.status} in the catalogue`,
      );
    }
    return problems;
  }

  private checkBody(label: string, schema: Json, body: unknown): string[] {
    const resolved = rewriteRefs(closeAllOfErrors(schema, this.doc));
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(resolved as object);
      this.compiled.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${label}: body${e.instancePath} ${e.message}${e.params && 'additionalProperty' in e.params ? ` "${String(e.params.additionalProperty)}"` : ''} (${e.schemaPath}) in ${JSON.stringify(body).slice(0, 300)}`,
      );
  }
}

/** `#/components/...` refs inside a response schema point into the registered `openapi` schema. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi${v}` : rewriteRefs(v),
    ]),
  );
}
