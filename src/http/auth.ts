import type { Middleware } from 'koa';
import type { Billing } from '../billing/billing.js';
import type { AppState } from './state.js';

/** Requires `Authorization: Bearer <API_KEY>`; puts the active key on ctx.state.apiKey or answers 401. */
export function requireKey(billing: Billing): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.apiKey = await billing.authenticate(ctx.get('Authorization') || undefined);
    await next();
  };
}
