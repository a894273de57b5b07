import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Metrics } from '../metrics.js';
import type { AppState } from './state.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts and times every request by matched route (not raw path, so labels stay few) and status.
 * A request that matches no route is `route="unmatched"`, and an unusual method is `method="OTHER"`,
 * so a scan of random paths adds no series.
 */
export function requestMetrics(metrics: Metrics): Middleware<AppState> {
  return async (ctx, next) => {
    const stop = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const labels = {
        method: METHODS.has(ctx.method) ? ctx.method : 'OTHER',
        route: (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
        status: String(ctx.status),
      };
      stop(labels);
      metrics.httpRequests.inc(labels);
    }
  };
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** `Authorization: Bearer <token>`, compared in constant time. */
export function hasMetricsToken(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
  return timingSafeEqual(digest(presented), digest(token));
}
