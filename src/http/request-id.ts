import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from './state.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SERVER_REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** True for an id this service made (a random UUID): the only kind that identifies a call in the ledger. */
export const isServerRequestId = (id: string): boolean => SERVER_REQUEST_ID.test(id);

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
