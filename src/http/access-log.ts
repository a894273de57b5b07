import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AppState } from './state.js';

/** One structured line per request. Never logs headers, keys or bodies: only the key's id. */
export function accessLog(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId: ctx.state.requestId,
          clientRequestId: ctx.state.clientRequestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
          keyId: ctx.state.apiKey?.id,
        },
        'request',
      );
    }
  };
}
