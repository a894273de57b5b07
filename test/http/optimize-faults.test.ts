import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { RouteSolver } from '../../src/api/optimize/pipeline.js';
import { SolverError } from '../../src/solver/errors.js';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

async function withSolver(
  solver: RouteSolver,
  env: Record<string, string>,
  run: (s: TestServer) => Promise<void>,
): Promise<void> {
  const server = await startTestServer({ env, overrides: { solver } });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

const failing = (error: Error): RouteSolver => ({
  solve: async () => {
    throw error;
  },
});
const stalling: RouteSolver = { solve: () => new Promise(() => {}) };

test('a solver trap → 502 optimization_failed, refunded; a test key gets its stops back', async () => {
  await withSolver(failing(new SolverError('trap', 'unreachable executed')), {}, async (s) => {
    const live = await s.createKey('live', 10);
    const res = await s.request('POST', '/api/v1/optimize', {
      key: live,
      body: { start: PARIS_START, stops: coordinateStops(4) },
    });
    assert.equal(res.status, 502);
    assert.equal(res.body.error, 'optimization_failed');
    assert.ok(!/unreachable/.test(res.body.message), 'no internals in the message');
    assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });

    const testKey = await s.createKey('test');
    assert.equal(
      (
        await s.request('POST', '/api/v1/optimize', {
          key: testKey,
          body: { start: PARIS_START, stops: coordinateStops(4) },
        })
      ).status,
      502,
    );
    assert.equal((await s.request('GET', '/api/v1/balance', { key: testKey })).body.sandboxStopsRemainingToday, 200);
  });
});

test('a full solver queue → 503 overloaded with Retry-After, refunded', async () => {
  await withSolver(failing(new SolverError('queue_full', 'queue full')), {}, async (s) => {
    const live = await s.createKey('live', 10);
    const res = await s.request('POST', '/api/v1/optimize', {
      key: live,
      body: { start: PARIS_START, stops: coordinateStops(4) },
    });
    assert.equal(res.status, 503);
    assert.equal(res.body.error, 'overloaded');
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal((await s.ledgerOf(live)).balance, 10);
  });
});

test('a call past the request deadline → 502 optimization_failed, refunded', async () => {
  await withSolver(stalling, { REQUEST_DEADLINE_MS: '1000' }, async (s) => {
    const live = await s.createKey('live', 10);
    const started = Date.now();
    const res = await s.request('POST', '/api/v1/optimize', {
      key: live,
      body: { start: PARIS_START, stops: coordinateStops(4) },
    });
    assert.equal(res.status, 502);
    assert.equal(res.body.error, 'optimization_failed');
    assert.match(res.body.message, /did not finish within 1000 ms/);
    assert.ok(Date.now() - started < 10_000);
    assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
  });
});

test('a client that disconnects mid-call is refunded', async () => {
  await withSolver(stalling, {}, async (s) => {
    const live = await s.createKey('live', 10);
    const controller = new AbortController();
    const call = fetch(`${s.url}/api/v1/optimize`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ start: PARIS_START, stops: coordinateStops(4) }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    for (let i = 0; i < 100 && (await s.ledgerOf(live)).balance === 10; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal((await s.ledgerOf(live)).balance, 6, 'the debit was taken while the call ran');
    controller.abort();
    assert.equal(await call, 'aborted');
    for (let i = 0; i < 100 && (await s.ledgerOf(live)).balance !== 10; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
  });
});

test('Idempotency-Key: a second call while the first still runs → 409 idempotency_in_progress, no second debit', async () => {
  await withSolver(stalling, { REQUEST_DEADLINE_MS: '4000' }, async (s) => {
    const live = await s.createKey('live', 10);
    const body = { start: PARIS_START, stops: coordinateStops(3) };
    const first = s.request('POST', '/api/v1/optimize', { key: live, body, headers: { 'Idempotency-Key': 'slow-1' } });
    for (let i = 0; i < 100 && (await s.ledgerOf(live)).balance === 10; i++)
      await new Promise((r) => setTimeout(r, 20));
    const second = await s.request('POST', '/api/v1/optimize', {
      key: live,
      body,
      headers: { 'Idempotency-Key': 'slow-1' },
    });
    assert.equal(second.status, 409);
    assert.equal(second.body.error, 'idempotency_in_progress');
    assert.equal((await first).status, 502);
    assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
  });
});

test('live keys: calls in flight past LIVE_MAX_CONCURRENT_PER_KEY → 429 rate_limited with Retry-After, not debited', async () => {
  await withSolver(stalling, { REQUEST_DEADLINE_MS: '4000', LIVE_MAX_CONCURRENT_PER_KEY: '2' }, async (s) => {
    const live = await s.createKey('live', 100);
    const body = { start: PARIS_START, stops: coordinateStops(3) };
    const running = [
      s.request('POST', '/api/v1/optimize', { key: live, body }),
      s.request('POST', '/api/v1/optimize', { key: live, body }),
    ];
    for (let i = 0; i < 100 && (await s.ledgerOf(live)).balance !== 94; i++)
      await new Promise((r) => setTimeout(r, 20));
    const third = await s.request('POST', '/api/v1/optimize', { key: live, body });
    assert.equal(third.status, 429);
    assert.equal(third.body.error, 'rate_limited');
    assert.equal(third.headers.get('retry-after'), '1');
    assert.equal((await s.ledgerOf(live)).balance, 94);
    assert.deepEqual(
      (await Promise.all(running)).map((r) => r.status),
      [502, 502],
    );
    // once they have finished, the key can call again (the slots were released)
    const again = await s.request('POST', '/api/v1/optimize', { key: live, body });
    assert.equal(again.status, 502);
    assert.equal((await s.ledgerOf(live)).balance, 100);
  });
});

test('a solver failure while timing the final order (after the solve) is the solve failing: 502, refunded', async () => {
  // an answer without times whose order is no permutation: evaluate_route refuses it (BAD_ORDER)
  const broken: RouteSolver = {
    solve: async () => ({ order: [0, 0, 1, 2], latenessS: 0, durationS: 0, solveMs: 1, iterations: 1 }),
  };
  await withSolver(broken, {}, async (s) => {
    const live = await s.createKey('live', 10);
    const res = await s.request('POST', '/api/v1/optimize', {
      key: live,
      body: { start: PARIS_START, stops: coordinateStops(4) },
    });
    assert.equal(res.status, 502);
    assert.equal(res.body.error, 'optimization_failed');
    assert.deepEqual(await s.ledgerOf(live), { balance: 10, sum: 10, reasons: ['admin_credit', 'debit', 'refund'] });
  });
});
