import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { DomainError, ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { isStorageUnavailable } from '../storage-errors.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import type { AppState } from './state.js';

const FALLBACK_BY_STATUS: Record<number, [ErrorCode, string]> = {
  404: ['not_found', 'No such endpoint.'],
  405: ['method_not_allowed', 'This endpoint does not accept that HTTP method.'],
  501: ['not_implemented', 'This HTTP method is not implemented.'],
};

/**
 * The headers an error answers with, from what it tells: WWW-Authenticate for unauthorized, RateLimit-* and
 * Retry-After for a refusal past a limit, Retry-After alone for a retry hint, Connection: close when the body was
 * not read whole.
 */
export function errorHeaders(err: DomainError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err.closeConnection) headers.Connection = 'close';
  if (err.code === 'unauthorized') headers['WWW-Authenticate'] = `Bearer realm="${err.realm ?? 'api'}"`;
  if (err.rateLimit) Object.assign(headers, rateLimitHeaders({ ...err.rateLimit, remaining: 0 }, true));
  else if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  return headers;
}

/**
 * Turns DomainError into the spec's Error body (a storage failure is also told to `hooks`, for readiness), unknown routes and methods into
 * 404/405 bodies, and anything unexpected into 500 internal_error without internals.
 * Every response is JSON; every Error body carries `requestId`.
 */
export function errorHandler(logger: Logger, hooks: { storageUnavailable?: () => void } = {}): Middleware<AppState> {
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
      const domainError = err instanceof DomainError ? err : undefined;
      if (!domainError && isStorageUnavailable(err)) {
        logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'storage unavailable');
        hooks.storageUnavailable?.();
        ctx.status = ERROR_CATALOGUE.storage_unavailable.status;
        ctx.set('Retry-After', '1');
        ctx.body = {
          error: 'storage_unavailable',
          message:
            'The service cannot record this call right now (database busy or full); retry shortly. Nothing was charged.',
        };
      } else if (domainError) {
        ctx.status = domainError.status;
        ctx.set(errorHeaders(domainError));
        ctx.body = domainError.body();
      } else {
        logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
        ctx.status = ERROR_CATALOGUE.internal_error.status;
        ctx.body = {
          error: 'internal_error',
          message: `An unexpected error occurred (request ${ctx.state.requestId}).`,
        };
      }
    }
    if (
      ctx.body !== undefined &&
      ctx.body !== null &&
      typeof ctx.body === 'object' &&
      !Buffer.isBuffer(ctx.body) &&
      typeof (ctx.body as NodeJS.ReadableStream).pipe !== 'function'
    ) {
      const body = ctx.body as Record<string, unknown>;
      if (ctx.status >= 400 && typeof body.error === 'string' && body.requestId === undefined && ctx.state.requestId) {
        // every Error body carries the request id of its X-Request-Id header (the caller's own when it sent one; the
        // log line has both), so a support request can quote it
        const status = ctx.status;
        ctx.body = { ...body, requestId: ctx.state.clientRequestId ?? ctx.state.requestId };
        ctx.status = status;
      }
      ctx.type = 'application/json';
    }
  };
}
