import { Router } from '@koa/router';
import { DomainError } from '../../errors.js';
import { rateLimitHeaders } from '../../http/rate-limit-headers.js';
import type { Billing } from '../../billing/billing.js';
import type { Middleware } from 'koa';
import type { KeyConcurrency } from '../../http/limits.js';
import type { AppContext, AppState } from '../../http/state.js';
import type { Idempotency, IdempotencyClaim } from './idempotency.js';
import { isAddress, type OptimizeRequest } from './schema.js';
import type { RouteOptimizer } from './types.js';
import { checkDepartureWindow, validateOptimizeRequest } from './validate.js';

export interface OptimizeDeps {
  billing: Billing;
  optimizer: RouteOptimizer;
  idempotency: Idempotency;
  /** A whole call past this is 502 optimization_failed, and refunded. */
  requestDeadlineMs: number;
  auth: Middleware<AppState>;
  /** Reads the JSON body: after `auth`, so nothing is read for a request without a valid key. */
  body: Middleware<AppState>;
  /** Bounds the calls in flight per live key. */
  liveConcurrency: KeyConcurrency;
  /** departureTime must lie within this many days of now. */
  departureWindowDays: number;
  clock: () => Date;
}

/**
 * POST /api/v1/optimize: auth (headers only) → body → validation → Idempotency-Key → key rules
 * (sandbox caps, or the live debit) → optimizer → response. Any failure after
 * the charge was taken (a timeout and a client that went away included) gives
 * it back before the error is answered.
 */
export function optimizeRouter(deps: OptimizeDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/v1/optimize', deps.auth, deps.body, async (ctx) => {
    const key = ctx.state.apiKey!;
    const request = validateOptimizeRequest(ctx.request.body);
    checkDepartureWindow(request.departureTime, deps.clock(), deps.departureWindowDays);
    if (key.kind === 'test') checkSandboxRequest(deps.billing, request);

    const release = key.kind === 'live' ? deps.liveConcurrency.acquire(key.id) : undefined;
    try {
      await idempotentOptimize(ctx, deps, request);
    } finally {
      release?.();
    }
  });
  return router;
}

async function idempotentOptimize(ctx: AppContext, deps: OptimizeDeps, request: OptimizeRequest): Promise<void> {
  const key = ctx.state.apiKey!;
  const idempotencyKey = ctx.get('Idempotency-Key');
  let claim: IdempotencyClaim | undefined;
  if (idempotencyKey) {
    const started = await deps.idempotency.start(key.id, idempotencyKey, ctx.request.body);
    if ('replay' in started) {
      ctx.status = started.replay.status;
      ctx.body = started.replay.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    claim = started.claim;
  }
  try {
    ctx.body = await optimizeAndCharge(ctx, deps, request, claim);
  } catch (err) {
    await claim?.abandon();
    throw err;
  }
}

async function optimizeAndCharge(ctx: AppContext, deps: OptimizeDeps, request: OptimizeRequest, claim?: IdempotencyClaim): Promise<object> {
  const key = ctx.state.apiKey!;
  const controller = new AbortController();
  // the response's 'close' fires early only when the connection goes away before we answer
  const onClose = (): void => {
    if (!ctx.res.writableFinished) controller.abort(new DomainError('client_closed', 'The client closed the connection; nothing was charged.'));
  };
  const deadline = setTimeout(() => controller.abort(new DomainError('optimization_failed',
    `The optimization did not finish within ${deps.requestDeadlineMs} ms. Nothing was charged.`)), deps.requestDeadlineMs);
  ctx.res.once('close', onClose);
  try {
    const charge = await deps.billing.openCharge(key, request.stops.length, ctx.state.requestId, ctx.state.clientRequestId ?? null);
    if (charge.rateLimit) ctx.set(rateLimitHeaders(charge.rateLimit));
    try {
      const route = await untilAborted(
        deps.optimizer.optimize(request, { sandbox: key.kind === 'test', requestId: ctx.state.requestId, signal: controller.signal }),
        controller.signal,
      );
      controller.signal.throwIfAborted();
      const body = { ...route, ...charge.fields };
      await charge.settle(claim?.record(200, body));
      return body;
    } catch (err) {
      await charge.cancel();
      throw err;
    }
  } finally {
    clearTimeout(deadline);
    ctx.res.off('close', onClose);
  }
}

/** Settles with the work, or rejects with the abort reason as soon as the signal fires. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function checkSandboxRequest(billing: Billing, request: OptimizeRequest): void {
  billing.checkSandboxCallSize(request.stops.length);
  const locations = [request.start, ...(request.end ? [request.end] : []), ...request.stops];
  if (locations.some(isAddress)) {
    throw new DomainError('sandbox_addresses_unsupported',
      'Test keys accept coordinates only (latitude, longitude); addresses need a live key.');
  }
}
