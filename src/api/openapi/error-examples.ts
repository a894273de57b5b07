/**
 * One example Error body per code, with the message the service really writes: the OpenAPI document's error
 * examples (parts.ts) and the docs' check that every code is shown.
 */
import type { ErrorCode } from '../../errors.js';

export const EXAMPLE_REQUEST_ID = '3f1c7d0e-5b7a-4c1e-9d8f-2a6b1c0e4d21';

/** One example Error body per code, with the message the service really writes. */
export const ERROR_EXAMPLES: Record<
  ErrorCode,
  Array<{ name: string; summary: string; value: Record<string, unknown> }>
> = {
  invalid_request: [
    {
      name: 'latLng',
      summary: 'lat/lng instead of latitude/longitude',
      value: {
        message:
          'start has "lat", "lng": use latitude and longitude (decimal degrees), e.g. {"latitude": 48.8566, "longitude": 2.3522}',
        param: 'start.lat',
      },
    },
    {
      name: 'oneStop',
      summary: 'Fewer than 2 stops',
      value: { message: 'stops must contain at least 2 items: a route needs 2 to 200 stops (got 1)', param: 'stops' },
    },
  ],
  sandbox_limit: [
    {
      name: 'sandboxLimit',
      summary: 'Test key, 11 stops',
      value: {
        message: 'Test keys accept at most 10 stops per call; this call has 11. Use a live key for larger routes.',
      },
    },
  ],
  sandbox_addresses_unsupported: [
    {
      name: 'sandboxAddresses',
      summary: 'Test key, an address',
      value: { message: 'Test keys accept coordinates only (latitude, longitude); addresses need a live key.' },
    },
  ],
  invalid_signature: [
    {
      name: 'invalidSignature',
      summary: 'Bad Stripe-Signature',
      value: { message: 'The Stripe-Signature header does not match the payload (or its timestamp is too old).' },
    },
  ],
  unauthorized: [
    {
      name: 'unauthorized',
      summary: 'No key',
      value: { message: 'Missing Authorization header: send "Authorization: Bearer <API_KEY>".' },
    },
  ],
  insufficient_stops: [
    {
      name: 'insufficientStops',
      summary: 'Balance too low',
      value: {
        message: "This call needs 120 stops but the key's balance is 45. Buy a pack to top up.",
        required: 120,
        balance: 45,
      },
    },
  ],
  not_found: [
    { name: 'notFound', summary: 'No such path', value: { message: 'No endpoint at GET /api/v1/optimise.' } },
  ],
  method_not_allowed: [
    {
      name: 'methodNotAllowed',
      summary: 'GET on a POST endpoint',
      value: { message: 'This endpoint does not accept that HTTP method.' },
    },
  ],
  idempotency_conflict: [
    {
      name: 'idempotencyConflict',
      summary: 'Same key, other body',
      value: { message: 'This Idempotency-Key was already used with a different request body.' },
    },
  ],
  idempotency_in_progress: [
    {
      name: 'idempotencyInProgress',
      summary: 'Same key, first call still running',
      value: { message: 'A request with this Idempotency-Key is still being processed; retry shortly.' },
    },
  ],
  request_timeout: [
    {
      name: 'requestTimeout',
      summary: 'Body stalled',
      value: { message: 'The request body did not arrive within 15 s; send it again.' },
    },
  ],
  payload_too_large: [
    {
      name: 'payloadTooLarge',
      summary: 'Body over the largest valid request',
      value: {
        message:
          'The request body is too large: at most 32005281 bytes for POST /api/v1/optimize; send fewer stops (at most 200), shorter ids and addresses, or a smaller matrix (one row per place of the call).',
      },
    },
  ],
  geocoding_failed: [
    {
      name: 'geocodingFailed',
      summary: 'An address not found',
      value: {
        message:
          'Could not geocode: stops[3] (id "abc"). Check the street, postal code and city, or send coordinates. Nothing was charged.',
      },
    },
  ],
  sandbox_rate_limited: [
    {
      name: 'sandboxRateLimited',
      summary: 'Test key, 21st call in a minute',
      value: {
        message: 'Test keys allow 20 calls per minute. Retry after 2026-06-01T06:01:00.000Z.',
        limit: 20,
        resetAt: '2026-06-01T06:01:00.000Z',
      },
    },
  ],
  rate_limited: [
    {
      name: 'rateLimited',
      summary: 'Too many failed authentications',
      value: { message: 'Too many failed authentications from this address; wait before trying again.' },
    },
  ],
  internal_error: [
    {
      name: 'internalError',
      summary: 'A bug',
      value: { message: `An unexpected error occurred (request ${EXAMPLE_REQUEST_ID}).` },
    },
  ],
  not_implemented: [
    {
      name: 'notImplemented',
      summary: 'Unknown HTTP method',
      value: { message: 'This HTTP method is not implemented.' },
    },
  ],
  optimization_failed: [
    {
      name: 'optimizationFailed',
      summary: 'No travel times',
      value: { message: 'No routing engine could compute travel times for these points. Nothing was charged.' },
    },
  ],
  sandbox_unavailable: [
    {
      name: 'sandboxUnavailable',
      summary: 'Sandbox engine down',
      value: {
        message: 'The sandbox routing engine is temporarily unavailable. Try again shortly. Nothing was counted.',
      },
    },
  ],
  payment_unavailable: [
    {
      name: 'paymentUnavailable',
      summary: 'Payments off',
      value: { message: 'Payments are not configured on this server (STRIPE_SECRET_KEY is not set).' },
    },
  ],
  overloaded: [
    {
      name: 'overloaded',
      summary: 'Solver queue full',
      value: { message: 'The optimizer is busy with other routes; retry in a moment. Nothing was charged.' },
    },
  ],
  storage_unavailable: [
    {
      name: 'storageUnavailable',
      summary: 'Database busy',
      value: {
        message:
          'The service cannot record this call right now (database busy or full); retry shortly. Nothing was charged.',
      },
    },
  ],
  not_ready: [
    {
      name: 'notReady',
      summary: 'Starting or stopping',
      value: { message: 'The service is starting or shutting down.' },
    },
  ],
  client_closed: [],
};

export const errorExample = (code: ErrorCode, index = 0): Record<string, unknown> => {
  const example = ERROR_EXAMPLES[code][index];
  return { error: code, ...example.value, requestId: EXAMPLE_REQUEST_ID };
};
