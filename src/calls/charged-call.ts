/**
 * What every paid endpoint (optimize, plans) does around its work: the live
 * key's concurrency slot, the Idempotency-Key (replay, conflict, in progress),
 * the charge (a live debit or a sandbox reservation) taken before the work and
 * given back on any failure, and the abort of the work when the client goes
 * away or the request deadline passes. Before any of it is built or charged, the call is admitted
 * (src/calls/admission.ts) or refused at once. The endpoint supplies only its work.
 */
import type { Billing, JobOrder } from '../billing/billing.js';
import { DomainError } from '../errors.js';
import type { KeyConcurrency } from '../http/limits.js';
import { rateLimitHeaders } from '../http/rate-limit-headers.js';
import type { AppContext } from '../http/state.js';
import { withLaneTicket } from '../solver/ticket-scope.js';
import type { Admission } from './admission.js';
import type { Idempotency, IdempotencyClaim } from './idempotency.js';

export interface ChargedCallDeps {
  billing: Billing;
  idempotency: Idempotency;
  /** A whole call past this is 502 optimization_failed, and refunded. */
  requestDeadlineMs: number;
  /** Bounds the calls in flight per live key. */
  liveConcurrency: KeyConcurrency;
  /** Refuses at once a call the solver cannot serve before its deadline; absent: every call is let in. */
  admission?: Admission;
}

/** What the work of a call is told. */
export interface CallContext {
  sandbox: boolean;
  requestId: string;
  /** Aborted when the client goes away or the request deadline passes. */
  signal: AbortSignal;
  /** Milliseconds until the request deadline (REQUEST_DEADLINE_MS after the charge was asked for). */
  msLeft(): number;
}

export interface ChargedCall {
  /** Stops the call is charged for (live) or counted against the sandbox day (test). */
  stops: number;
  /**
   * Which endpoint the Idempotency-Key is claimed for: undefined for optimize (its stored
   * records stay valid), a name for every other endpoint, so that one key never replays
   * another endpoint's answer (the same key on another endpoint is 409 idempotency_conflict).
   */
  idempotencyScope?: string;
  /** The endpoint's path (it sizes the solver budget admission counts) and the call's number of locations. */
  admission?: { path: string; locations: number };
  work(context: CallContext): Promise<object>;
  /** The answer's status: 200, or 202 for an asynchronous plan. */
  status?: 200 | 202;
  /** An asynchronous plan: its job is created with the charge made final (src/api/plans/jobs/). */
  job?: JobOrder;
}

/** Runs `call` for the authenticated key of `ctx` and answers with its body plus the charge's fields. */
export async function runChargedCall(ctx: AppContext, deps: ChargedCallDeps, call: ChargedCall): Promise<void> {
  const key = ctx.state.apiKey!;
  const release = key.kind === 'live' ? deps.liveConcurrency.acquire(key.id) : undefined;
  try {
    await idempotent(ctx, deps, call);
  } finally {
    release?.();
  }
}

async function idempotent(ctx: AppContext, deps: ChargedCallDeps, call: ChargedCall): Promise<void> {
  const key = ctx.state.apiKey!;
  const idempotencyKey = ctx.get('Idempotency-Key');
  let claim: IdempotencyClaim | undefined;
  if (idempotencyKey) {
    const started = await deps.idempotency.start(key.id, idempotencyKey, ctx.request.body, call.idempotencyScope);
    if ('replay' in started) {
      ctx.status = started.replay.status;
      ctx.body = started.replay.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    claim = started.claim;
  }
  try {
    ctx.body = await workAndCharge(ctx, deps, call, claim);
    ctx.status = call.status ?? 200;
  } catch (err) {
    await claim?.abandon();
    throw err;
  }
}

async function workAndCharge(
  ctx: AppContext,
  deps: ChargedCallDeps,
  call: ChargedCall,
  claim?: IdempotencyClaim,
): Promise<object> {
  const key = ctx.state.apiKey!;
  // before anything is built or charged: a refusal here costs nothing
  const admitted =
    call.admission &&
    deps.admission?.admit({
      key: String(key.id),
      path: call.admission.path,
      stops: call.stops,
      locations: call.admission.locations,
      msLeft: deps.requestDeadlineMs,
    });
  const controller = new AbortController();
  const deadlineAt = performance.now() + deps.requestDeadlineMs;
  // the response's 'close' fires early only when the connection goes away before we answer
  const onClose = (): void => {
    if (!ctx.res.writableFinished)
      controller.abort(new DomainError('client_closed', 'The client closed the connection; nothing was charged.'));
  };
  const deadline = setTimeout(
    () =>
      controller.abort(
        new DomainError(
          'optimization_failed',
          `The optimization did not finish within ${deps.requestDeadlineMs} ms. Nothing was charged.`,
        ),
      ),
    deps.requestDeadlineMs,
  );
  ctx.res.once('close', onClose);
  try {
    const charge = await deps.billing.openCharge(
      key,
      call.stops,
      ctx.state.requestId,
      ctx.state.clientRequestId ?? null,
    );
    if (charge.rateLimit) ctx.set(rateLimitHeaders(charge.rateLimit));
    try {
      const context: CallContext = {
        sandbox: key.kind === 'test',
        requestId: ctx.state.requestId,
        signal: controller.signal,
        msLeft: () => deadlineAt - performance.now(),
      };
      const result = await untilAborted(
        admitted ? withLaneTicket(admitted.ticket, () => call.work(context)) : call.work(context),
        controller.signal,
      );
      controller.signal.throwIfAborted();
      const body = { ...result, ...charge.fields };
      await charge.settle(claim?.record(call.status ?? 200, body), call.job);
      return body;
    } catch (err) {
      await charge.cancel();
      throw err;
    }
  } finally {
    admitted?.release();
    clearTimeout(deadline);
    ctx.res.off('close', onClose);
  }
}

/** Settles with the work, or rejects with the abort reason as soon as the signal fires. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
