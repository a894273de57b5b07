/**
 * Request bodies, read only by the routes that take one and, on routes that
 * need a key, only after the key was checked from the headers. Each read has
 * a size limit (with a key: the largest valid request of the route's schema,
 * src/http/body-size.ts, unless BODY_LIMIT_BYTES sets one; a small one without
 * a key), a deadline, and a share of one global budget of bytes held in bodies
 * being received, so stalled or oversized uploads cannot pile up memory:
 *   - a Content-Length over the limit → 413 at once, nothing read;
 *   - the budget spent → 503 overloaded with Retry-After;
 *   - the body not whole within BODY_TIMEOUT_MS → 408 request_timeout;
 * each of them closing the connection. JSON is parsed here too, refusing
 * `__proto__` and `constructor` keys and documents nested too deep, naming where.
 *
 * Hand-written rather than @koa/bodyparser (co-body, raw-body): those read the
 * body before any route or key is known and have no shared budget nor deadline.
 */
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import type { Middleware } from 'koa';
import type { Config } from '../config.js';
import { DomainError, invalidRequest } from '../errors.js';
import { largestValidBodyBytes } from './body-size.js';
import { fieldPath } from './validate.js';
import { ownTurn } from './turns.js';
import type { AppContext, AppState } from './state.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, on routes that read one (see RequestBodies). */
    body?: unknown;
    /** The raw body text, on routes that verify a signature over it. */
    rawBody?: string;
  }
}

export interface BodyLimits {
  /** Largest body of a request authenticated by its API key; null: each route's largest valid request. */
  authenticatedBytes: number | null;
  /** Largest body of a request without a key (checkout, console). */
  anonymousBytes: number;
  /** Most bytes held at once in bodies being received, across all requests. */
  inFlightBytes: number;
  /** A body must arrive whole within this long once reading starts. */
  timeoutMs: number;
  maxJsonDepth: number;
}

export function bodyLimitsOf(config: Pick<Config, 'bodyLimitBytes' | 'limits'>): BodyLimits {
  return {
    authenticatedBytes: config.bodyLimitBytes,
    anonymousBytes: config.limits.anonymousBodyLimitBytes,
    inFlightBytes: config.limits.bodyBytesInFlight,
    timeoutMs: config.limits.bodyTimeoutMs,
    maxJsonDepth: config.limits.maxJsonDepth,
  };
}

/** A body this large (a plan of a few hundred stops) is parsed in a turn of the event loop of its own (./turns.ts). */
const OWN_TURN_BYTES = 32 * 1024;

/** A Stripe event is a few kilobytes; this leaves room for large sessions and still bounds an unsigned upload. */
export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/** A route's body limit and what its 413 tells the caller. */
export interface BodyLimit {
  bytes: number;
  /** Where the limit holds, e.g. "POST /api/v1/plans", "a request without an API key". */
  where: string;
  /** What to shrink, e.g. "send fewer stops or shorter ids and addresses". */
  shrink?: string;
}

/** A JSON route authenticated by its key: its path, the schema of its body, and what a caller can shrink. */
export interface JsonRoute {
  where: string;
  schema: object;
  shrink: string;
}

const closing = { closeConnection: true };
const tooLarge = (limit: BodyLimit): DomainError =>
  new DomainError(
    'payload_too_large',
    `The request body is too large: at most ${limit.bytes} bytes for ${limit.where}${limit.shrink ? `; ${limit.shrink}` : ''}.`,
    closing,
  );
const busy = (): DomainError =>
  new DomainError('overloaded', 'The server is receiving too many request bodies at once; retry shortly.', {
    ...closing,
    retryAfterSeconds: 1,
  });
const timedOut = (ms: number): DomainError =>
  new DomainError(
    'request_timeout',
    `The request body did not arrive within ${Math.round(ms / 1000)} s; send it again.`,
    closing,
  );
const notJson = (expected: string): DomainError =>
  new DomainError('invalid_request', `The request body is not valid JSON: send ${expected}.`);
const notAnObject = (value: unknown, expected: string): DomainError =>
  new DomainError(
    'invalid_request',
    `The request body is ${value === null ? 'JSON null' : `a JSON ${typeof value}`}, not an object: send ${expected}.`,
  );

/** "a JSON object with "start" and "stops"": the required properties of a route's schema. */
function expectedBody(schema: object | undefined): string {
  const required = (schema as { required?: unknown } | undefined)?.required;
  if (!Array.isArray(required) || required.length === 0) return 'a JSON object';
  const names = required.map((name) => JSON.stringify(name));
  return `a JSON object with ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]}`;
}

/** Bytes held by bodies being received, across every request of this process. */
export class ByteBudget {
  private used = 0;
  constructor(readonly max: number) {}

  get inUse(): number {
    return this.used;
  }

  reserve(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
  );
}

function declaredLength(req: IncomingMessage): number | null {
  const value = req.headers['content-length'];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * Reads the whole body within `limit` decoded bytes, the budget and the deadline. Resolves with the bytes and
 * how much of the budget they hold (the caller releases it once done with them).
 */
function readBody(
  req: IncomingMessage,
  limit: BodyLimit,
  budget: ByteBudget,
  timeoutMs: number,
): Promise<{ data: Buffer; reserved: number }> {
  const declared = declaredLength(req);
  if (declared !== null && declared > limit.bytes) return Promise.reject(tooLarge(limit));
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = encoding === 'identity' ? null : DECODERS[encoding];
  if (decoder === undefined) {
    return Promise.reject(
      new DomainError(
        'invalid_request',
        `Content-Encoding "${encoding}" is not supported: send the body as is, or gzip, deflate or br.`,
      ),
    );
  }
  // a declared length is reserved whole up front, so a thousand stalled uploads are refused before they send
  let reserved = 0;
  if (declared !== null && decoder === null) {
    if (!budget.reserve(declared)) return Promise.reject(busy());
    reserved = declared;
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const source = decoder ? req.pipe(decoder()) : req;
    const finish = (err: DomainError | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      req.off('aborted', onAborted);
      req.off('error', onError);
      if (err) {
        if (decoder) req.unpipe();
        req.pause();
        budget.release(reserved);
        reject(err);
      } else {
        resolve({ data: Buffer.concat(chunks, size), reserved });
      }
    };
    // bytes held count against the budget as they arrive (decoded ones for a compressed body), unless reserved up front
    const reservedUpFront = reserved > 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit.bytes) return finish(tooLarge(limit));
      if (!reservedUpFront) {
        if (!budget.reserve(chunk.length)) return finish(busy());
        reserved += chunk.length;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(null);
    const onError = (): void =>
      finish(
        new DomainError(
          'invalid_request',
          'The request body could not be read (broken upload or bad compression).',
          closing,
        ),
      );
    const onAborted = (): void =>
      finish(new DomainError('invalid_request', 'The request body was not received completely.', closing));
    const timer = setTimeout(() => finish(timedOut(timeoutMs)), timeoutMs);
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
    if (decoder) req.once('error', onError);
    req.once('aborted', onAborted);
  });
}

/** Own keys a JSON document may not use: they reach Object.prototype through naive merges. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

interface Node {
  value: object;
  depth: number;
  parent: Node | null;
  key: string;
}

function pathOf(node: Node, key: string): string {
  const parts: Array<string | number> = [key];
  for (let n: Node | null = node; n && n.parent; n = n.parent)
    parts.unshift(Array.isArray(n.parent.value) ? Number(n.key) : n.key);
  return fieldPath(parts);
}

/** Refuses forbidden keys and nesting deeper than `maxDepth`, naming where (iterative: no recursion on hostile input). */
export function inspectJson(root: unknown, maxDepth: number): void {
  if (root === null || typeof root !== 'object') return;
  const stack: Node[] = [{ value: root, depth: 1, parent: null, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > maxDepth)
      throw new DomainError('invalid_request', `The JSON body is nested more than ${maxDepth} levels deep.`);
    const isArray = Array.isArray(node.value);
    for (const key of Object.keys(node.value)) {
      if (!isArray && FORBIDDEN_KEYS.has(key)) {
        const path = pathOf(node, key);
        throw invalidRequest(
          `${path} is not allowed: "__proto__" and "constructor" cannot be used as property names.`,
          path,
        );
      }
      const child = (node.value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, depth: node.depth + 1, parent: node, key });
    }
  }
}

/** JSON as co-body's strict mode: an object or an array (the schema then names what else); an empty body is {}. */
function parseJson(data: Buffer, expected: string): unknown {
  const text = data.toString('utf8').replace(/^\uFEFF/, '');
  if (!/\S/.test(text)) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notJson(expected);
  }
  if (value === null || typeof value !== 'object') throw notAnObject(value, expected);
  return value;
}

const isJsonType = (ctx: AppContext): boolean => typeof ctx.is('json', '+json') === 'string';

export class RequestBodies {
  readonly budget: ByteBudget;

  constructor(readonly limits: BodyLimits) {
    this.budget = new ByteBudget(limits.inFlightBytes);
  }

  /**
   * Parses a JSON body into ctx.request.body. `anyType`: API clients sometimes forget the Content-Type and
   * every API body is JSON; elsewhere (the console) only application/json is read, so a cross-site form cannot post.
   */
  json(limit: BodyLimit, options: { anyType: boolean; schema?: object }): Middleware<AppState> {
    const expected = expectedBody(options.schema);
    return async (ctx, next) => {
      const request = ctx.request;
      if (!hasBody(ctx.req) || (!options.anyType && !isJsonType(ctx))) {
        request.body = {};
        return next();
      }
      const { data, reserved } = await readBody(ctx.req, limit, this.budget, this.limits.timeoutMs);
      // parsed, checked and validated (the route's next steps, in the same stretch) in a turn of its own
      if (data.length >= OWN_TURN_BYTES) await ownTurn();
      try {
        request.body = parseJson(data, expected);
      } finally {
        this.budget.release(reserved);
      }
      inspectJson(request.body, this.limits.maxJsonDepth);
      await next();
    };
  }

  /**
   * The body limit of an authenticated route: BODY_LIMIT_BYTES when set, else the largest valid request of
   * its schema; never more than the in-flight budget (a larger body could never be received whole).
   */
  authenticatedLimit(route: JsonRoute): BodyLimit {
    const bytes = this.limits.authenticatedBytes ?? largestValidBodyBytes(route.schema);
    return { bytes: Math.min(bytes, this.limits.inFlightBytes), where: route.where, shrink: route.shrink };
  }

  /** A body for a request authenticated by its key, within the route's limit. */
  authenticatedJson(route: JsonRoute): Middleware<AppState> {
    return this.json(this.authenticatedLimit(route), { anyType: true, schema: route.schema });
  }

  /** A body for a request without a key: the small limit. */
  anonymousJson(options: { anyType: boolean } = { anyType: true }): Middleware<AppState> {
    return this.json({ bytes: this.limits.anonymousBytes, where: 'a request without an API key' }, options);
  }

  /** The raw body as text in ctx.request.rawBody (signed payloads: the signature is over these exact bytes). */
  raw(limitBytes: number): Middleware<AppState> {
    const limit = { bytes: limitBytes, where: 'a signed webhook event' };
    return async (ctx, next) => {
      const request = ctx.request;
      if (!hasBody(ctx.req)) {
        request.rawBody = '';
        return next();
      }
      const { data, reserved } = await readBody(ctx.req, limit, this.budget, this.limits.timeoutMs);
      request.rawBody = data.toString('utf8');
      this.budget.release(reserved);
      await next();
    };
  }
}

/**
 * A response sent while a large body is still unread (a 401 before the body, a 404) closes the
 * connection: otherwise Node would keep receiving and discarding the rest. Small leftovers are
 * discarded as usual, keeping the connection.
 */
export function closeAfterUnreadBody(smallBytes: number): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (hasBody(ctx.req) && !ctx.req.complete) {
        const declared = declaredLength(ctx.req);
        if (declared === null || declared > smallBytes) ctx.set('Connection', 'close');
      }
    }
  };
}
