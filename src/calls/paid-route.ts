/**
 * The route of a paid endpoint: auth (headers only) → body → the endpoint's validation → the
 * departure window → the caller's own matrix, if any (src/calls/given-matrix.ts) → the key rules (a test key's stop cap, coordinates only) → the charged call around
 * the endpoint's work (src/calls/charged-call.ts). An endpoint gives only its path, its validation,
 * the locations of its request and its work.
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Billing } from '../billing/billing.js';
import { DomainError } from '../errors.js';
import type { JobOrder } from '../billing/billing.js';
import { prefersRespondAsync } from '../http/prefer.js';
import type { AppContext, AppState } from '../http/state.js';
import { runChargedCall, type CallContext, type ChargedCallDeps } from './charged-call.js';
import { isAddress } from './location-schema.js';
import type { LabelledLocation } from './locations.js';
import { checkCallTravel, type CallTravel } from './given-matrix.js';
import { checkDepartureWindow } from './request-checks.js';

export interface PaidRouteDeps extends ChargedCallDeps {
  auth: Middleware<AppState>;
  /** Reads the JSON body: after `auth`, so nothing is read for a request without a valid key. */
  body: Middleware<AppState>;
  /** departureTime must lie within this many days of now. */
  departureWindowDays: number;
  clock: () => Date;
}

/** What every paid request has: stops, each charged (live) or counted (sandbox), an optional departure, and where its travel times come from. */
export interface PaidRequest extends CallTravel {
  stops: readonly unknown[];
  departureTime?: string;
}

export interface PaidEndpoint<R extends PaidRequest> {
  path: string;
  /** The schema and the endpoint's own rules: the request, or 400 invalid_request. */
  validate(body: unknown): R;
  /** The stops the call is billed and limited by (default: one per entry of `stops`). */
  stopCount?(request: R): number;
  /** Every location of the request, labelled (the sandbox's coordinates-only rule reads them). */
  locations(request: R): LabelledLocation[];
  /** See ChargedCall.idempotencyScope. */
  idempotencyScope?: string;
  work(request: R, context: CallContext): Promise<object>;
  /** The endpoint also answers `Prefer: respond-async`: 202 and a job, charged at acceptance. */
  async?: AsyncMode<R>;
}

/** An endpoint's asynchronous mode: its request becomes a job, created with the charge made final. */
export interface AsyncMode<R> {
  /** A synchronous call with a field that only an asynchronous one takes: 400. */
  rejectSync(request: R): void;
  /** The job to create (or 429 when the key has too many unfinished); nothing is charged yet. */
  order(request: R, keyId: number): Promise<JobOrder>;
  /** Where the job is read (the `Location` header). */
  location(id: string): string;
  /** A job was accepted (its runner may start it at once). */
  accepted(): void;
}

export function paidRoute<R extends PaidRequest>(deps: PaidRouteDeps, endpoint: PaidEndpoint<R>): Router<AppState> {
  const router = new Router<AppState>();
  router.post(endpoint.path, deps.auth, deps.body, async (ctx) => {
    const request = endpoint.validate(ctx.request.body);
    const respondAsync = endpoint.async !== undefined && prefersRespondAsync(ctx.headers.prefer);
    if (!respondAsync) endpoint.async?.rejectSync(request);
    checkDepartureWindow(request.departureTime, deps.clock(), deps.departureWindowDays);
    const sandbox = ctx.state.apiKey!.kind === 'test';
    const locations = endpoint.locations(request);
    const stops = endpoint.stopCount?.(request) ?? request.stops.length;
    checkCallTravel(request, locations, sandbox);
    if (sandbox) checkSandboxRequest(deps.billing, stops, locations);
    if (respondAsync) {
      await acceptJob(ctx, deps, endpoint, endpoint.async!, request, stops);
      return;
    }
    await runChargedCall(ctx, deps, {
      stops,
      admission: { path: endpoint.path, locations: locations.length },
      ...(endpoint.idempotencyScope !== undefined ? { idempotencyScope: endpoint.idempotencyScope } : {}),
      work: (context) => endpoint.work(request, context),
    });
  });
  return router;
}

/**
 * An asynchronous call: charged like a synchronous one, its job created with the charge made final, answered 202
 * with the job's id and `Location`. An Idempotency-Key replays the first acceptance (the same job); the key is
 * claimed apart from the endpoint's synchronous calls, so the same key on both is 409.
 */
async function acceptJob<R extends PaidRequest>(
  ctx: AppContext,
  deps: PaidRouteDeps,
  endpoint: PaidEndpoint<R>,
  mode: AsyncMode<R>,
  request: R,
  stops: number,
): Promise<void> {
  const job = await mode.order(request, ctx.state.apiKey!.id);
  await runChargedCall(ctx, deps, {
    stops,
    idempotencyScope: `${endpoint.idempotencyScope ?? endpoint.path} (respond-async)`,
    status: 202,
    job,
    work: async () => ({ id: job.id, status: 'queued' }),
  });
  const accepted = ctx.body as { id: string };
  ctx.set('Location', mode.location(accepted.id));
  ctx.set('Preference-Applied', 'respond-async');
  if (accepted.id === job.id) mode.accepted();
}

/** Test keys: the per-call stop cap, and coordinates only. */
function checkSandboxRequest(billing: Billing, stops: number, locations: readonly LabelledLocation[]): void {
  billing.checkSandboxCallSize(stops);
  if (locations.some((l) => isAddress(l.location))) {
    throw new DomainError(
      'sandbox_addresses_unsupported',
      'Test keys accept coordinates only (latitude, longitude); addresses need a live key.',
    );
  }
}
