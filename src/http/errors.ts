import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError, ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { isStorageUnavailable } from '../store/types.js';
import type { AppState } from './state.js';

const FALLBACK_BY_STATUS: Record<number, [ErrorCode, string]> = {
  404: ['not_found', 'No such endpoint.'],
  405: ['method_not_allowed', 'This endpoint does not accept that HTTP method.'],
  501: ['not_implemented', 'This HTTP method is not implemented.'],
};

/**
 * Turns ApiError into the spec's Error body, unknown routes and methods into
 * 404/405 bodies, and anything unexpected into 500 internal_error without internals.
 * Every response is JSON; every Error body carries `requestId`.
 */
export function errorHandler(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null && FALLBACK_BY_STATUS[ctx.status]) {
        const status = ctx.status;
        const [code, message] = FALLBACK_BY_STATUS[status];
        ctx.body = { error: code, message: status === 404 ? `No endpoint at ${ctx.method} ${ctx.path}.` : message };
        ctx.status = status; // setting a body would otherwise turn Koa's implicit 404 into 200
      }
    } catch (err) {
      const apiError = err instanceof ApiError ? err : undefined;
      if (!apiError && isStorageUnavailable(err)) {
        logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'storage unavailable');
        ctx.status = ERROR_CATALOGUE.storage_unavailable.status;
        ctx.set('Retry-After', '1');
        ctx.body = { error: 'storage_unavailable', message: 'The service cannot record this call right now (database busy or full); retry shortly. Nothing was charged.' };
      } else if (apiError) {
        ctx.status = apiError.status;
        ctx.set(apiError.headers);
        ctx.body = apiError.body();
      } else {
        logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
        ctx.status = ERROR_CATALOGUE.internal_error.status;
        ctx.body = { error: 'internal_error', message: `An unexpected error occurred (request ${ctx.state.requestId}).` };
      }
    }
    if (ctx.body !== undefined && ctx.body !== null && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body) && typeof (ctx.body as NodeJS.ReadableStream).pipe !== 'function') {
      const body = ctx.body as Record<string, unknown>;
      if (ctx.status >= 400 && typeof body.error === 'string' && body.requestId === undefined && ctx.state.requestId) {
        // every Error body carries the request id (the X-Request-Id header), so a support request can quote it
        const status = ctx.status;
        ctx.body = { ...body, requestId: ctx.state.requestId };
        ctx.status = status;
      }
      ctx.type = 'application/json';
    }
  };
}

/** Maps the body parser's errors (too large, malformed JSON) to Error bodies. */
export function bodyParserError(err: Error & { status?: number; type?: string }): never {
  if (err.status === 413) throw new ApiError(413, 'payload_too_large', 'The request body is too large.');
  if (err.status === 415) throw new ApiError(400, 'invalid_request', 'The request body must be JSON (Content-Type: application/json).');
  throw new ApiError(400, 'invalid_request', 'The request body is not valid JSON: send a JSON object.');
}
