/**
 * Asynchronous plans: POST /api/v1/plans with `Prefer: respond-async` → 202 and a job; GET, the event stream and
 * DELETE of /api/v1/jobs/{id}; charged at acceptance and refunded when the job ends without a plan.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import type { PlanSolver } from '../../src/api/plans/pipeline.js';
import { createRoutingProvider } from '../../src/geo/index.js';
import { SolverError } from '../../src/solver/errors.js';
import { planProblems } from '../helpers/plan-invariants.js';
import { PARIS_START, coordinateStops, startTestServer, withServer, type TestServer } from '../helpers/server.js';

const DEPARTURE = '2026-06-01T08:00:00+02:00';
const body = (stops = 6, extra: Record<string, unknown> = {}) => ({
  departureTime: DEPARTURE,
  vehicles: [
    { id: 'a', start: PARIS_START },
    { id: 'b', start: PARIS_START },
  ],
  stops: coordinateStops(stops),
  ...extra,
});
const ASYNC = { Prefer: 'respond-async' };

/** Reads the job until `done` says so (each read checked against the OpenAPI document). */
async function until(server: TestServer, key: string, id: string, done: (job: any) => boolean): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const res = await server.request('GET', `/api/v1/jobs/${id}`, { key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (done(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${id} did not get there`);
}
const ended = (job: any) => ['succeeded', 'failed', 'cancelled'].includes(job.status);

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '150', JOB_POLL_MS: '100' } });
});
after(async () => {
  await server.close();
});

test('live key: 202 with Location at once, charged once; the job runs to a valid plan that GET returns', async () => {
  const key = await server.createKey('live', 100);
  const plan = body(6);
  const request = { ...plan, timeLimitSeconds: 1 };
  const res = await server.request('POST', '/api/v1/plans', { key, body: request, headers: ASYNC });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.status, 'queued');
  assert.deepEqual([res.body.stopsCharged, res.body.stopsBalance], [6, 94]);
  assert.equal(res.headers.get('location'), `/api/v1/jobs/${res.body.id}`);
  assert.equal(res.headers.get('preference-applied'), 'respond-async');
  const job = await until(server, key, res.body.id, ended);
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  assert.ok(job.startedAt && job.finishedAt && job.createdAt <= job.startedAt && job.startedAt <= job.finishedAt);
  assert.equal(job.progress.budgetMs, 1000, 'timeLimitSeconds is the budget');
  assert.equal(job.progress.assigned, 6);
  assert.equal(job.result.stopsCharged, 6);
  const haversine = createRoutingProvider('haversine', {
    haversine: { circuityFactor: server.config.routing.circuityFactor },
  });
  assert.deepEqual(await planProblems(plan, job.result, haversine), []);
  const ledger = await server.ledgerOf(key);
  assert.deepEqual([ledger.balance, ledger.sum, ledger.reasons], [94, 94, ['admin_credit', 'debit']]);
});

test('test key: the sandbox rules hold; stopsCharged 0; the job succeeds', async () => {
  const key = await server.createKey('test');
  const res = await server.request('POST', '/api/v1/plans', { key, body: body(4), headers: ASYNC });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.deepEqual([res.body.stopsCharged, res.body.sandbox], [0, true]);
  const job = await until(server, key, res.body.id, ended);
  assert.equal(job.status, 'succeeded');
  assert.deepEqual([job.result.stopsCharged, job.result.sandbox], [0, true]);
  const tooMany = await server.request('POST', '/api/v1/plans', { key, body: body(11), headers: ASYNC });
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.body.error, 'sandbox_limit');
});

test('a job is visible only to its key: another key, or an unknown id, gets 404 on every job path', async () => {
  const key = await server.createKey('live', 100);
  const other = await server.createKey('live', 100);
  const res = await server.request('POST', '/api/v1/plans', { key, body: body(3), headers: ASYNC });
  assert.equal(res.status, 202);
  for (const [method, path] of [
    ['GET', `/api/v1/jobs/${res.body.id}`],
    ['GET', `/api/v1/jobs/${res.body.id}/events`],
    ['DELETE', `/api/v1/jobs/${res.body.id}`],
    ['GET', '/api/v1/jobs/nope'],
  ] as const) {
    const seen = await server.request(method, path, { key: other });
    assert.equal(seen.status, 404, `${method} ${path}`);
    assert.equal(seen.body.error, 'not_found');
    assert.match(seen.body.message, /only to the key that created it/);
  }
  assert.equal((await server.request('GET', `/api/v1/jobs/${res.body.id}`)).status, 401);
  await until(server, key, res.body.id, ended);
});

test('timeLimitSeconds needs Prefer: respond-async, and at most 600', async () => {
  const key = await server.createKey('live', 100);
  const sync = await server.request('POST', '/api/v1/plans', { key, body: body(3, { timeLimitSeconds: 5 }) });
  assert.equal(sync.status, 400);
  assert.equal(sync.body.param, 'timeLimitSeconds');
  assert.match(sync.body.message, /Prefer: respond-async/);
  const tooLong = await server.request('POST', '/api/v1/plans', {
    key,
    body: body(3, { timeLimitSeconds: 601 }),
    headers: ASYNC,
  });
  assert.equal(tooLong.status, 400);
  assert.match(tooLong.body.message, /1 to 600/);
  assert.equal((await server.ledgerOf(key)).balance, 100);
});

test('Idempotency-Key: the same async call replays its 202 (the same job, charged once); the key on a synchronous plan is 409', async () => {
  const key = await server.createKey('live', 100);
  const headers = { ...ASYNC, 'Idempotency-Key': 'day-2026-06-01' };
  const first = await server.request('POST', '/api/v1/plans', { key, body: body(5), headers });
  const again = await server.request('POST', '/api/v1/plans', { key, body: body(5), headers });
  assert.equal(first.status, 202);
  assert.equal(again.status, 202);
  assert.equal(again.body.id, first.body.id);
  assert.equal(again.headers.get('location'), `/api/v1/jobs/${first.body.id}`);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const sync = await server.request('POST', '/api/v1/plans', {
    key,
    body: body(5),
    headers: { 'Idempotency-Key': 'day-2026-06-01' },
  });
  assert.equal(sync.status, 409);
  assert.equal((await server.ledgerOf(key)).balance, 95);
  await until(server, key, first.body.id, ended);
});

/** Reads a whole event stream (the server ends it after its end event) into its events. */
async function events(s: TestServer, key: string, id: string): Promise<Array<{ event: string; id: number; job: any }>> {
  const stream = await fetch(`${s.url}/api/v1/jobs/${id}/events`, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('content-type')!, /^text\/event-stream/);
  const text = await stream.text();
  const parsed = text
    .split('\n\n')
    .filter((block) => block.includes('event: '))
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)![1]!,
      id: Number(/^id: (.*)$/m.exec(block)![1]),
      job: JSON.parse(/^data: (.*)$/m.exec(block)![1]!),
    }));
  assert.deepEqual(
    parsed.map((e) => e.id),
    parsed.map((_, i) => i + 1),
    'event ids count up from 1',
  );
  assert.equal(parsed.at(-1)?.event, 'end', text);
  assert.ok(
    parsed.slice(0, -1).every((e) => e.event === 'status' && !ended(e.job)),
    text,
  );
  return parsed;
}

test('the event stream, read by an HTTP client: it ends with one end event carrying the result', async () => {
  const key = await server.createKey('live', 100);
  const res = await server.request('POST', '/api/v1/plans', { key, body: body(8), headers: ASYNC });
  const last = (await events(server, key, res.body.id)).at(-1)!;
  assert.equal(last.job.status, 'succeeded');
  assert.equal(last.job.result.routes.flatMap((r: any) => r.order).length, 8);
});

test('with no runner (SERVICE_ROLE=api): jobs wait queued; DELETE cancels one at once and refunds it; the per-key cap answers 429 uncharged', async () => {
  await withServer({ env: { SERVICE_ROLE: 'api', JOB_MAX_UNFINISHED_PER_KEY: '2' } }, async (s) => {
    const key = await s.createKey('live', 100);
    const a = await s.request('POST', '/api/v1/plans', { key, body: body(4), headers: ASYNC });
    const b = await s.request('POST', '/api/v1/plans', { key, body: body(4), headers: ASYNC });
    assert.deepEqual([a.status, b.status], [202, 202]);
    const c = await s.request('POST', '/api/v1/plans', { key, body: body(4), headers: ASYNC });
    assert.equal(c.status, 429);
    assert.equal(c.body.error, 'rate_limited');
    assert.ok(Number(c.headers.get('retry-after')) >= 1);
    assert.match(c.body.message, /DELETE \/api\/v1\/jobs/);
    assert.equal((await s.ledgerOf(key)).balance, 92);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await s.request('GET', `/api/v1/jobs/${a.body.id}`, { key })).body.status, 'queued');
    const cancelled = await s.request('DELETE', `/api/v1/jobs/${a.body.id}`, { key });
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.result, undefined);
    const ledger = await s.ledgerOf(key);
    assert.deepEqual([ledger.balance, ledger.sum], [96, 96]);
    assert.deepEqual(ledger.reasons, ['admin_credit', 'debit', 'debit', 'refund']);
    // a second cancel changes nothing; the freed place takes a new job
    assert.equal((await s.request('DELETE', `/api/v1/jobs/${a.body.id}`, { key })).body.status, 'cancelled');
    assert.equal((await s.ledgerOf(key)).balance, 96);
    assert.equal((await s.request('POST', '/api/v1/plans', { key, body: body(4), headers: ASYNC })).status, 202);
  });
});

const failing: PlanSolver = {
  solveFleet: async () => {
    throw new SolverError('trap', 'unreachable executed');
  },
};

test('a job that fails ends failed with its error, and is refunded', async () => {
  await withServer({ env: { JOB_POLL_MS: '100' }, overrides: { fleetSolver: failing } }, async (s) => {
    const key = await s.createKey('live', 50);
    const res = await s.request('POST', '/api/v1/plans', { key, body: body(5), headers: ASYNC });
    const job = await until(s, key, res.body.id, ended);
    assert.equal(job.status, 'failed');
    assert.equal(job.error.error, 'optimization_failed');
    assert.match(job.error.message, /Nothing was charged/);
    assert.equal(job.result, undefined);
    const ledger = await s.ledgerOf(key);
    assert.deepEqual([ledger.balance, ledger.reasons], [50, ['admin_credit', 'debit', 'refund']]);
  });
});

test('a solver too busy to take the job: it goes back to the queue, waits a poll between tries, and stays charged', async () => {
  const full: PlanSolver = {
    solveFleet: async () => {
      throw new SolverError('queue_full', 'queue full');
    },
  };
  await withServer({ env: { JOB_POLL_MS: '200' }, overrides: { fleetSolver: full } }, async (s) => {
    const key = await s.createKey('live', 50);
    const res = await s.request('POST', '/api/v1/plans', { key, body: body(5), headers: ASYNC });
    await new Promise((r) => setTimeout(r, 1_200));
    const job = (await s.request('GET', `/api/v1/jobs/${res.body.id}`, { key })).body;
    assert.equal(job.status, 'queued', 'given back, not failed');
    const keyRecord = (await s.services.store.listKeys()).find((k) => k.balance === 45)!;
    const stored = await s.services.store.job(keyRecord.id, res.body.id);
    assert.ok(stored!.attempts >= 2 && stored!.attempts <= 10, `tried ${stored!.attempts} times in 1.2 s`);
    assert.deepEqual((await s.ledgerOf(key)).reasons, ['admin_credit', 'debit']);
  });
});

/** A solver that runs until it is told to stop. */
const endless: PlanSolver = {
  solveFleet: (_problem, options) =>
    new Promise((_resolve, reject) => options?.signal?.addEventListener('abort', () => reject(options.signal!.reason))),
};

test('a running job: its progress streams as status events; cancelled, it stops within about a second and, without a plan yet, is refunded', async () => {
  await withServer(
    { env: { JOB_POLL_MS: '100', JOB_PROGRESS_MS: '100' }, overrides: { fleetSolver: endless } },
    async (s) => {
      const key = await s.createKey('live', 50);
      const res = await s.request('POST', '/api/v1/plans', {
        key,
        body: body(5, { timeLimitSeconds: 600 }),
        headers: ASYNC,
      });
      await until(s, key, res.body.id, (job) => job.status === 'running');
      const stream = events(s, key, res.body.id);
      await until(s, key, res.body.id, (job) => job.progress.elapsedMs >= 1000);
      const asked = await s.request('DELETE', `/api/v1/jobs/${res.body.id}`, { key });
      assert.equal(asked.status, 200);
      assert.equal(asked.body.status, 'running', 'a running job is asked to stop');
      const job = await until(s, key, res.body.id, ended);
      assert.equal(job.status, 'cancelled');
      assert.equal((await s.ledgerOf(key)).balance, 50);
      const seen = await stream;
      const running = seen.filter((e) => e.job.status === 'running').map((e) => e.job.progress.elapsedMs);
      assert.ok(running.length >= 2, 'progress events while it runs');
      assert.ok(running.at(-1)! > running[0]!, `elapsedMs grows: ${running.join(', ')}`);
      assert.equal(seen.at(-1)!.job.status, 'cancelled');
    },
  );
});

/** A plan big enough that its search runs to its budget (about 200 stops do not converge within seconds). */
const bigPlan = (timeLimitSeconds: number) => ({
  ...body(200),
  vehicles: ['a', 'b', 'c', 'd'].map((id) => ({ id, start: PARIS_START })),
  timeLimitSeconds,
});

test("a real solve: the solver's new best plans reach GET and the event stream while it runs (improvements, assigned, objective)", async () => {
  await withServer({ env: { JOB_POLL_MS: '100', JOB_PROGRESS_MS: '100' } }, async (s) => {
    const key = await s.createKey('live', 1000);
    const res = await s.request('POST', '/api/v1/plans', { key, body: bigPlan(4), headers: ASYNC });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const stream = events(s, key, res.body.id);
    const live = await until(s, key, res.body.id, (job) => job.status === 'running' && job.progress.improvements > 0);
    assert.equal(live.result, undefined, 'still running');
    assert.ok(live.progress.assigned > 0 && live.progress.assigned <= 200, JSON.stringify(live.progress));
    assert.ok(live.progress.objective > 0, JSON.stringify(live.progress));
    const seen = await stream;
    const running = seen.filter((e) => e.job.status === 'running' && e.job.progress.improvements > 0);
    assert.ok(running.length >= 2, `status events with the solver's progress: ${running.length}`);
    const counts = running.map((e) => e.job.progress.improvements);
    assert.ok(counts.at(-1)! > counts[0]!, `improvements grow while it runs: ${counts.join(', ')}`);
    const end = seen.at(-1)!.job;
    assert.equal(end.status, 'succeeded');
    assert.ok(end.progress.improvements >= counts.at(-1)!);
    assert.equal(end.progress.assigned, end.result.totals.assigned);
    assert.equal(end.progress.objective, end.result.totals.estimatedTimeMin);
  });
});

test('cancelling a running solve: the search ends at once, the job is cancelled with its best plan as the result, charged once', async () => {
  await withServer({ env: { JOB_POLL_MS: '100', JOB_PROGRESS_MS: '100' } }, async (s) => {
    const key = await s.createKey('live', 1000);
    const plan = bigPlan(120);
    const res = await s.request('POST', '/api/v1/plans', { key, body: plan, headers: ASYNC });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await until(s, key, res.body.id, (job) => job.progress.improvements > 0);
    const asked = await s.request('DELETE', `/api/v1/jobs/${res.body.id}`, { key });
    assert.equal(asked.body.status, 'running', 'a running job is asked to stop');
    const askedAt = Date.now();
    const job = await until(s, key, res.body.id, ended);
    assert.ok(Date.now() - askedAt < 5_000, `ended ${Date.now() - askedAt} ms after the cancel, of a 120 s budget`);
    assert.equal(job.status, 'cancelled', JSON.stringify(job.error));
    assert.ok(job.result, 'the best plan is kept');
    assert.equal(job.result.stopsCharged, 200);
    assert.equal(job.result.totals.stops, 200);
    assert.equal(job.progress.assigned, job.result.totals.assigned);
    const { timeLimitSeconds: _t, ...request } = plan;
    const haversine = createRoutingProvider('haversine', {
      haversine: { circuityFactor: s.config.routing.circuityFactor },
    });
    assert.deepEqual(await planProblems(request, job.result, haversine), [], 'every hard constraint holds');
    const ledger = await s.ledgerOf(key);
    assert.deepEqual([ledger.balance, ledger.sum, ledger.reasons], [800, 800, ['admin_credit', 'debit']]);
    // a second cancel changes nothing
    assert.equal((await s.request('DELETE', `/api/v1/jobs/${res.body.id}`, { key })).body.status, 'cancelled');
    assert.equal((await s.ledgerOf(key)).balance, 800);
  });
});
