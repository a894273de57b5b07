import type { Middleware } from 'koa';
import type { Billing } from '../billing/billing.js';
import { ApiError } from '../errors.js';
import type { FailedAuthLimiter } from './limits.js';
import type { AppState } from './state.js';

/**
 * Requires `Authorization: Bearer <API_KEY>`; puts the active key on
 * ctx.state.apiKey or answers 401. An address with too many recent failures
 * is refused (429 rate_limited) before its key is even looked up.
 */
export function requireKey(billing: Billing, limiter?: FailedAuthLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    limiter?.check(ctx.ip);
    try {
      ctx.state.apiKey = await billing.authenticate(ctx.get('Authorization') || undefined);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) limiter?.fail(ctx.ip);
      throw err;
    }
    await next();
  };
}
