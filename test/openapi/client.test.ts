/**
 * A client generated from the served document (openapi-typescript types +
 * openapi-fetch) calls every operation of the document against a real server,
 * with a fake Stripe; every answer, success and error, is checked against the
 * document the server serves.
 */
import { strict as assert } from 'node:assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import createClient from 'openapi-fetch';
import Stripe from 'stripe';
import { OpenApiResponseValidator } from '../helpers/openapi-validator.js';
import { PARIS_START, coordinateStops, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import type { components, paths } from './generated/api.js';
import { PLAN_REQUEST_EXAMPLES } from '../../src/api/openapi/plan-examples.js';
import { VROOM_REQUEST_EXAMPLES } from '../../src/api/openapi/vroom-examples.js';

const WEBHOOK_SECRET = 'whsec_test_client_secret';

let dir: string;
let server: TestServer;
let stripe: FakeStripe;
let contract: OpenApiResponseValidator;
let client: ReturnType<typeof createClient<paths>>;
const called = new Set<string>();

before(async () => {
  stripe = await startFakeStripe();
  dir = tempDir('ros-client-');
  server = await startTestServer({
    dir,
    env: {
      STRIPE_SECRET_KEY: 'sk_test_client',
      STRIPE_API_BASE: stripe.url,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SANDBOX_CALLS_PER_MINUTE: '4',
      OUTBOX_DIR: join(dir, 'outbox'),
    },
  });
  const served = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
  contract = new OpenApiResponseValidator(served);
  client = createClient<paths>({ baseUrl: server.url });
  // every answer the client sees is checked against the served document
  client.use({
    async onResponse({ request, response }) {
      const body = await response.clone().text();
      const url = new URL(request.url);
      called.add(`${request.method} ${url.pathname} ${response.status}`);
      const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
      const problems = contract.check({
        method: request.method,
        path: url.pathname,
        status: response.status,
        headers: response.headers,
        body: body && json ? JSON.parse(body) : body || null,
      });
      assert.deepEqual(problems, [], problems.join('\n'));
      return response;
    },
  });
});
after(async () => {
  await server.close();
  await stripe.close();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

test('optimize: 200 for a test key and a live key, typed end to end', async () => {
  const testKey = await server.createKey('test');
  const request: components['schemas']['OptimizeRequest'] = {
    start: PARIS_START,
    end: { latitude: 48.85, longitude: 2.35 },
    departureTime: '2026-06-01T08:00:00+02:00',
    stops: [
      { id: 'a', latitude: 48.8606, longitude: 2.3376, deadline: '08:03' },
      { id: 'b', latitude: 48.853, longitude: 2.3499, serviceSeconds: 60 },
    ],
  };
  const sandbox = await client.POST('/api/v1/optimize', { body: request, headers: bearer(testKey) });
  assert.equal(sandbox.response.status, 200);
  assert.ok(sandbox.data);
  assert.equal(sandbox.data.sandbox, true);
  assert.deepEqual([...sandbox.data.order].sort(), ['a', 'b']);
  assert.equal(sandbox.response.headers.get('ratelimit-limit'), '4');

  const liveKey = await server.createKey('live', 10);
  const live = await client.POST('/api/v1/optimize', {
    body: {
      start: PARIS_START,
      stops: [{ id: 'x', street: '10 rue de Rivoli', postalCode: '75004', city: 'Paris' }, ...coordinateStops(2)],
    },
    params: { header: { 'Idempotency-Key': 'client-test-1', 'X-Request-Id': 'client-test-req' } },
    headers: bearer(liveKey),
  });
  assert.equal(live.response.status, 200, JSON.stringify(live.error));
  assert.equal(live.data?.stopsCharged, 3);
  assert.equal(live.data?.stopsBalance, 7);
  assert.equal(live.response.headers.get('x-request-id'), 'client-test-req');
  const replay = await client.POST('/api/v1/optimize', {
    body: {
      start: PARIS_START,
      stops: [{ id: 'x', street: '10 rue de Rivoli', postalCode: '75004', city: 'Paris' }, ...coordinateStops(2)],
    },
    params: { header: { 'Idempotency-Key': 'client-test-1' } },
    headers: bearer(liveKey),
  });
  assert.equal(replay.response.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.data?.stopsBalance, 7);
});

test('optimize: the error answers a client sees are typed Error bodies', async () => {
  const testKey = await server.createKey('test');
  const liveKey = await server.createKey('live', 1);
  const invalid = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: [] },
    headers: bearer(testKey),
  });
  assert.equal(invalid.response.status, 400);
  assert.equal(invalid.error?.error, 'invalid_request');
  assert.equal(invalid.error?.param, 'stops');
  const sandboxLimit = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: coordinateStops(11) },
    headers: bearer(testKey),
  });
  assert.equal(sandboxLimit.error?.error, 'sandbox_limit');
  const unauthorized = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: coordinateStops(2) },
  });
  assert.equal(unauthorized.error?.error, 'unauthorized');
  const short = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: coordinateStops(2) },
    headers: bearer(liveKey),
  });
  assert.equal(short.response.status, 402);
  assert.deepEqual([short.error?.required, short.error?.balance], [2, 1]);
  const conflict = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: coordinateStops(3) },
    params: { header: { 'Idempotency-Key': 'used-once' } },
    headers: bearer(testKey),
  });
  assert.equal(conflict.response.status, 200);
  const reused = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: coordinateStops(4) },
    params: { header: { 'Idempotency-Key': 'used-once' } },
    headers: bearer(testKey),
  });
  assert.equal(reused.error?.error, 'idempotency_conflict');
  const geocoding = await client.POST('/api/v1/optimize', {
    body: {
      start: PARIS_START,
      stops: [{ id: 'x', street: '1 rue Nulle Part', postalCode: '99999', city: 'Atlantis' }, ...coordinateStops(1)],
    },
    headers: bearer(await server.createKey('live', 10)),
  });
  assert.equal(geocoding.response.status, 422);
  assert.equal(geocoding.error?.error, 'geocoding_failed');
  for (let i = 0; i < 4; i++)
    await client.POST('/api/v1/optimize', {
      body: { start: PARIS_START, stops: coordinateStops(2, i + 5) },
      headers: bearer(testKey),
    });
  const limited = await client.POST('/api/v1/optimize', {
    body: { start: PARIS_START, stops: coordinateStops(2) },
    headers: bearer(testKey),
  });
  assert.equal(limited.response.status, 429);
  assert.equal(limited.error?.error, 'sandbox_rate_limited');
  assert.ok(limited.error?.resetAt);
});

test('plans: the documented example with a live key, typed end to end; its errors are typed Error bodies', async () => {
  const example = PLAN_REQUEST_EXAMPLES.fleet.value as components['schemas']['PlanRequest'];
  const live = await client.POST('/api/v1/plans', {
    body: example,
    headers: bearer(await server.createKey('live', 10)),
    params: { header: { 'Idempotency-Key': 'plan-1' } },
  });
  assert.equal(live.response.status, 200);
  assert.ok(live.data && 'routes' in live.data, 'a synchronous plan (200), not an accepted job (202)');
  const placed = [...live.data.routes.flatMap((r) => r.order), ...live.data.unassigned.map((u) => u.id)].sort();
  assert.deepEqual(placed, example.stops.map((s) => s.id).sort());
  assert.deepEqual([live.data.stopsCharged, live.data.stopsBalance], [7, 3]);
  const invalid = await client.POST('/api/v1/plans', {
    body: { ...example, vehicles: [] },
    headers: bearer(await server.createKey('test')),
  });
  assert.equal(invalid.response.status, 400);
  assert.equal(invalid.error?.param, 'vehicles');
  const short = await client.POST('/api/v1/plans', {
    body: example,
    headers: bearer(await server.createKey('live', 6)),
  });
  assert.deepEqual([short.response.status, short.error?.required, short.error?.balance], [402, 7, 6]);
});

test('asynchronous plans: 202 and the job, typed; the job to its end; its event stream; a cancel', async () => {
  const example = PLAN_REQUEST_EXAMPLES.fleet.value as components['schemas']['PlanRequest'];
  const key = bearer(await server.createKey('live', 20));
  const accepted = await client.POST('/api/v1/plans', {
    body: { ...example, timeLimitSeconds: 1 },
    headers: key,
    params: { header: { Prefer: 'respond-async' } },
  });
  assert.equal(accepted.response.status, 202);
  const id = (accepted.data as components['schemas']['JobAccepted']).id;
  assert.equal(accepted.response.headers.get('location'), `/api/v1/jobs/${id}`);
  let job: components['schemas']['Job'] | undefined;
  for (let i = 0; i < 100 && !['succeeded', 'failed', 'cancelled'].includes(job?.status ?? ''); i++) {
    await new Promise((r) => setTimeout(r, 100));
    job = (await client.GET('/api/v1/jobs/{id}', { params: { path: { id } }, headers: key })).data;
  }
  assert.equal(job?.status, 'succeeded');
  assert.equal(job?.result?.stopsCharged, 7);
  const events = await client.GET('/api/v1/jobs/{id}/events', {
    params: { path: { id } },
    headers: key,
    parseAs: 'text',
  });
  assert.match(events.data as string, /event: end\ndata: \{"id":"/);
  const cancelled = await client.DELETE('/api/v1/jobs/{id}', { params: { path: { id } }, headers: key });
  assert.equal(cancelled.data?.status, 'succeeded', 'a finished job stays as it is');
  const other = await client.GET('/api/v1/jobs/{id}', {
    params: { path: { id } },
    headers: bearer(await server.createKey('live', 1)),
  });
  assert.equal(other.error?.error, 'not_found');
});

test('own matrix and geometry (extensions), typed end to end: the given times, a straight line, a named 400', async () => {
  const request: components['schemas']['OptimizeRequest'] = {
    start: { index: 0 },
    end: { index: 0 },
    stops: [
      { id: 'a', index: 1, serviceSeconds: 60 },
      { id: 'b', index: 2 },
    ],
    matrix: {
      durations: [
        [0, 600, 900],
        [620, 0, 420],
        [880, 400, 0],
      ],
    },
    locations: [PARIS_START, { latitude: 48.8606, longitude: 2.3376 }, { latitude: 48.853, longitude: 2.3499 }],
    departureTime: '2026-06-01T08:00:00Z',
    geometry: true,
  };
  const answer = await client.POST('/api/v1/optimize', {
    body: request,
    headers: bearer(await server.createKey('test')),
  });
  assert.equal(answer.response.status, 200, JSON.stringify(answer.error));
  assert.equal(answer.data?.geometrySource, 'straight');
  assert.equal(answer.data?.legs?.length, 3);
  // 600 + 60 (service) + 420 + 880 s = 32.67 min, 1 decimal
  assert.equal(answer.data?.estimatedTimeMin, 32.7);
  const plan = await client.POST('/api/v1/plans', {
    body: {
      vehicles: [{ id: 'van', start: { index: 0 } }],
      stops: request.stops,
      matrix: request.matrix,
      geometry: true,
      locations: request.locations,
    },
    headers: bearer(await server.createKey('test')),
  });
  assert.equal(plan.response.status, 200, JSON.stringify(plan.error));
  assert.ok(plan.data && 'routes' in plan.data);
  assert.equal(plan.data.routes[0]?.legs?.length, 2);
  const wrong = await client.POST('/api/v1/optimize', {
    body: {
      ...request,
      matrix: {
        durations: [
          [0, 1],
          [1, 0],
        ],
      },
    },
    headers: bearer(await server.createKey('test')),
  });
  assert.equal(wrong.response.status, 400);
  assert.equal(wrong.error?.param, 'locations');
});

test("VROOM's format (extension), typed end to end: VROOM's example 2, and an unsupported field in VROOM's error body", async () => {
  const key = await server.createKey('test');
  const request = VROOM_REQUEST_EXAMPLES.customMatrix.value as components['schemas']['VroomRequest'];
  const answer = await client.POST('/api/v1/vroom', { body: request, headers: bearer(key) });
  assert.equal(answer.response.status, 200, JSON.stringify(answer.error));
  assert.equal(answer.data?.code, 0);
  assert.deepEqual(
    answer.data?.routes[0]?.steps.map((s) => s.id ?? s.type),
    ['start', 1414, 1515, 'end'],
  );
  const refused = await client.POST('/api/v1/vroom', {
    body: { ...request, vehicles: [{ id: 0, start_index: 0, steps: [{ type: 'start' }] as never[] }] },
    headers: bearer(key),
  });
  assert.equal(refused.response.status, 400);
  assert.ok(refused.error && 'errorCode' in refused.error);
  assert.equal(refused.error.code, 2);
  assert.equal(refused.error.errorCode, 'invalid_request');
  assert.equal(refused.error.param, 'vehicles[0].steps');
});

test('balance: both shapes, and 401', async () => {
  const live = await client.GET('/api/v1/balance', { headers: bearer(await server.createKey('live', 42)) });
  assert.deepEqual(live.data, { stopsBalance: 42 });
  const sandbox = await client.GET('/api/v1/balance', { headers: bearer(await server.createKey('test')) });
  assert.ok(sandbox.data && 'sandbox' in sandbox.data && sandbox.data.sandboxCallsRemainingThisMinute === 4);
  const none = await client.GET('/api/v1/balance', {});
  assert.equal(none.response.status, 401);
  assert.equal(none.error?.error, 'unauthorized');
});

test('packs and checkout: the payment page, and an invalid body', async () => {
  const packs = await client.GET('/api/v1/packs');
  assert.deepEqual(
    packs.data?.packs.map((p) => p.id),
    ['pack_2k', 'pack_10k', 'pack_50k', 'pack_250k'],
  );
  const checkout = await client.POST('/api/v1/checkout', { body: { email: 'buyer@example.com', packId: 'pack_10k' } });
  assert.equal(checkout.response.status, 200, JSON.stringify(checkout.error));
  assert.match(checkout.data?.url ?? '', /^https:\/\/checkout\.stripe\.com\//);
  const invalid = await client.POST('/api/v1/checkout', { body: { email: 'nobody', packId: 'pack_10k' } });
  assert.equal(invalid.error?.error, 'invalid_request');
  assert.equal(invalid.error?.param, 'email');
  stripe.mode = 'error500';
  try {
    const down = await client.POST('/api/v1/checkout', { body: { email: 'buyer@example.com', packId: 'pack_2k' } });
    assert.equal(down.response.status, 503);
    assert.equal(down.error?.error, 'payment_unavailable');
  } finally {
    stripe.mode = 'ok';
  }
});

test('the Stripe webhook (a webhook of the document, not a client operation) answers as documented', async () => {
  const checkout = await client.POST('/api/v1/checkout', { body: { email: 'hook@example.com', packId: 'pack_2k' } });
  const sessionId = /cs_test_\w+/.exec(checkout.data!.url)![0];
  const payload = JSON.stringify(stripe.event('checkout.session.completed', sessionId, { payment_status: 'paid' }));
  const post = async (signature: string) => {
    const res = await fetch(`${server.url}/api/v1/webhooks/stripe`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
      body: payload,
    });
    const body = await res.json();
    called.add(`POST /api/v1/webhooks/stripe ${res.status}`);
    assert.deepEqual(
      contract.check({
        method: 'POST',
        path: '/api/v1/webhooks/stripe',
        status: res.status,
        headers: res.headers,
        body,
      }),
      [],
    );
    return { status: res.status, body };
  };
  const credited = await post(Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }));
  assert.deepEqual(credited.body, { received: true, result: 'credited', createdKey: true });
  const refused = await post('t=1,v1=00');
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error, 'invalid_signature');
});

test('every operation of the document was called, and every answer matched it', () => {
  const operations = contract.listOperations().map((o) => `${o.method} ${o.path}`);
  assert.deepEqual(operations.sort(), [
    'DELETE /api/v1/jobs/{id}',
    'GET /api/v1/balance',
    'GET /api/v1/jobs/{id}',
    'GET /api/v1/jobs/{id}/events',
    'GET /api/v1/packs',
    'POST /api/v1/checkout',
    'POST /api/v1/optimize',
    'POST /api/v1/plans',
    'POST /api/v1/vroom',
    'POST /api/v1/webhooks/stripe',
  ]);
  for (const operation of operations) {
    const answered = new RegExp(`^${operation.replace(/\{\w+\}/g, '[^/ ]+')} 2`);
    assert.ok(
      [...called].some((c) => answered.test(c)),
      `${operation} answered 2xx at least once`,
    );
  }
  for (const status of ['400', '401', '402', '409', '422', '429'])
    assert.ok(
      [...called].some((c) => c.startsWith('POST /api/v1/optimize') && c.endsWith(status)),
      status,
    );
});
