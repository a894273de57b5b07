import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from './state.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every request gets the service's own id (a random UUID), used in the ledger, the sandbox records and the logs.
 * A caller's X-Request-Id, when short and plain, is kept beside it (logged, stored in its own ledger column) and
 * echoed; otherwise the service's id is sent back.
 */
export function requestId(): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = randomUUID();
    ctx.state.clientRequestId = SAFE_REQUEST_ID.test(incoming) ? incoming : undefined;
    ctx.set('X-Request-Id', ctx.state.clientRequestId ?? ctx.state.requestId);
    await next();
  };
}
