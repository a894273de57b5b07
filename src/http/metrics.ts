import type { Middleware } from 'koa';
import type { Metrics } from '../metrics.js';
import type { AppState } from './state.js';

/** Counts and times every request by matched route (not raw path, so labels stay few) and status. */
export function requestMetrics(metrics: Metrics): Middleware<AppState> {
  return async (ctx, next) => {
    const stop = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const labels = { method: ctx.method, route: (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', status: String(ctx.status) };
      stop(labels);
      metrics.httpRequests.inc(labels);
    }
  };
}
