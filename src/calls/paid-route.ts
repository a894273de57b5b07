/**
 * The route of a paid endpoint: auth (headers only) → body → the endpoint's validation → the
 * departure window → the key rules (a test key's stop cap, coordinates only) → the charged call around
 * the endpoint's work (src/calls/charged-call.ts). An endpoint gives only its path, its validation,
 * the locations of its request and its work.
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Billing } from '../billing/billing.js';
import { DomainError } from '../errors.js';
import type { AppState } from '../http/state.js';
import { runChargedCall, type CallContext, type ChargedCallDeps } from './charged-call.js';
import { isAddress } from './location-schema.js';
import type { LabelledLocation } from './locations.js';
import { checkDepartureWindow } from './request-checks.js';

export interface PaidRouteDeps extends ChargedCallDeps {
  auth: Middleware<AppState>;
  /** Reads the JSON body: after `auth`, so nothing is read for a request without a valid key. */
  body: Middleware<AppState>;
  /** departureTime must lie within this many days of now. */
  departureWindowDays: number;
  clock: () => Date;
}

/** What every paid request has: stops, each charged (live) or counted (sandbox), and an optional departure. */
export interface PaidRequest {
  stops: readonly unknown[];
  departureTime?: string;
}

export interface PaidEndpoint<R extends PaidRequest> {
  path: string;
  /** The schema and the endpoint's own rules: the request, or 400 invalid_request. */
  validate(body: unknown): R;
  /** Every location of the request, labelled (the sandbox's coordinates-only rule reads them). */
  locations(request: R): LabelledLocation[];
  /** See ChargedCall.idempotencyScope. */
  idempotencyScope?: string;
  work(request: R, context: CallContext): Promise<object>;
}

export function paidRoute<R extends PaidRequest>(deps: PaidRouteDeps, endpoint: PaidEndpoint<R>): Router<AppState> {
  const router = new Router<AppState>();
  router.post(endpoint.path, deps.auth, deps.body, async (ctx) => {
    const request = endpoint.validate(ctx.request.body);
    checkDepartureWindow(request.departureTime, deps.clock(), deps.departureWindowDays);
    const locations = endpoint.locations(request);
    if (ctx.state.apiKey!.kind === 'test') checkSandboxRequest(deps.billing, request.stops.length, locations);
    await runChargedCall(ctx, deps, {
      stops: request.stops.length,
      admission: { path: endpoint.path, locations: locations.length },
      ...(endpoint.idempotencyScope !== undefined ? { idempotencyScope: endpoint.idempotencyScope } : {}),
      work: (context) => endpoint.work(request, context),
    });
  });
  return router;
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
