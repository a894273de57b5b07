import type { Middleware } from 'koa';
import type { AppState } from './state.js';

/** Headers every API answer carries. HSTS is left to the TLS-terminating proxy. */
export function securityHeaders(): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!ctx.response.get('Content-Security-Policy')) {
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    }
    if (ctx.path.startsWith('/api/') && !ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
  };
}

/**
 * CORS for the API. Keys travel in the Authorization header, never in cookies,
 * so allowing any origin exposes nothing a caller does not already hold.
 */
export function cors(allowedOrigins: string[]): Middleware<AppState> {
  const any = allowedOrigins.includes('*');
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (!origin || !ctx.path.startsWith('/api/')) return next();
    const allowed = any || allowedOrigins.includes(origin);
    if (allowed) {
      ctx.set('Access-Control-Allow-Origin', any ? '*' : origin);
      if (!any) ctx.vary('Origin');
      ctx.set(
        'Access-Control-Expose-Headers',
        'Retry-After, X-Request-Id, Idempotent-Replayed, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset',
      );
    }
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      if (allowed) {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key, X-Request-Id');
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    await next();
  };
}
