/**
 * Errors of POST /api/v1/vroom in VROOM's body, `{code, error}` (`error` is the message, as VROOM writes it), with
 * this service's status and fields beside it: `errorCode` (the catalogue's code, e.g. `insufficient_stops`), the
 * code's extra fields (`param`, `required`, `balance`, `limit`, `resetAt`) and `requestId`. VROOM's `code`:
 * 2 (input error) for every 4xx, 3 (routing error) when the routing engine failed, 1 (internal error) for any
 * other 5xx. Every error of the route goes through here: the key check, the body, validation, the charge,
 * admission, the work. The status and headers are the service's own (src/http/errors.ts does the mapping).
 */
import type { Middleware } from 'koa';
import { DomainError } from '../../errors.js';
import { errorHandler } from '../../http/errors.js';
import type { AppState } from '../../http/state.js';
import type { Logger } from '../../logger.js';
import { VROOM_CODES, vroomErrorBody } from './schema.js';

/** A failure of the routing engine: answered with VROOM's code 3. */
export function routingFailure(err: DomainError): DomainError {
  return new DomainError(err.code, err.message, {
    extra: { ...err.extra, code: VROOM_CODES.routing },
    ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
  });
}

/** Runs the route's middleware and answers any error of it in VROOM's body. */
export function vroomErrors(logger: Logger, hooks: { storageUnavailable?: () => void } = {}): Middleware<AppState> {
  const answer = errorHandler(logger, hooks);
  return async (ctx, next) => {
    await answer(ctx, next);
    const body = ctx.body as Record<string, unknown> | null | undefined;
    if (ctx.status >= 400 && body && typeof body === 'object' && typeof body.message === 'string') {
      const status = ctx.status;
      ctx.body = vroomErrorBody(status, body);
      ctx.status = status;
    }
  };
}
