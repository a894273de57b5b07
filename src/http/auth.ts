import type { Middleware } from 'koa';
import type { Billing } from '../billing/billing.js';
import { DomainError } from '../errors.js';
import type { FailedAuthLimiter } from './limits.js';
import type { AppState } from './state.js';

/**
 * Requires `Authorization: Bearer <API_KEY>`, from the headers alone (before any body is read); puts the
 * active key on ctx.state.apiKey or answers 401. Failures are counted per client address: past the limit a
 * failure answers 429 rate_limited instead of 401. A valid key is always accepted, whatever its address did.
 */
export function requireKey(billing: Billing, limiter?: FailedAuthLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      ctx.state.apiKey = await billing.authenticate(ctx.get('Authorization') || undefined);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'unauthorized') limiter?.fail(ctx.ip);
      throw err;
    }
    await next();
  };
}
