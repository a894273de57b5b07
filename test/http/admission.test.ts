/**
 * Admission over HTTP, on the real pool: plans the solver cannot finish before the request deadline are
 * refused at once with 503 overloaded and Retry-After, charged nothing; one key's solver seconds in
 * flight are bounded (429), another key's small call is still served. Behaviour only: which answers
 * come, never how fast.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer } from '../helpers/server.js';

// A 400-stop plan's budget is 2 s (5 ms per stop), big work (over 500 ms); one worker takes big work.
// Two vans and 400 stops, so that a solve holds its worker for its whole budget: the search stops early
// only after ⌈n²/10⌉ = 16,000 iterations without a better plan, several times what 2 s allow here. (A
// plan that converged sooner would free the worker before a call arriving late on a loaded machine.)
const STOPS = 400;
const env = {
  REQUEST_DEADLINE_MS: '5000',
  PLANS_SOLVER_MS_PER_STOP: '5',
  SOLVER_SMALL_SOLVE_MS: '500',
  SOLVER_POOL_SIZE: '2',
  SOLVER_SMALL_WORKERS: '1',
};
const plan = {
  vehicles: [
    { id: 'v1', start: PARIS_START },
    { id: 'v2', start: PARIS_START },
  ],
  stops: coordinateStops(STOPS, 3),
};

test('plans that could not finish before the deadline get 503 overloaded with Retry-After, charged nothing', async () => {
  const server = await startTestServer({ env });
  try {
    const key = await server.createKey('live', 10_000);
    // One big worker, 2 s solves, a 5 s deadline and at least 1 s of solving (half the budget) + 0.1 s for the
    // answer: the second call fits after the first (2 + 1.1 + 0.1 s); the third only if the first was already
    // 0.2 s into its solve when it came (a loaded machine spreads the arrivals); the fourth never (4 + 1.2 s).
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() => server.request('POST', '/api/v1/plans', { key, body: plan })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    // A call admitted on a loaded machine (the arrivals spread, the third or fourth then fits with a shortened
    // solve) may still end past its deadline: that is 502 optimization_failed, refunded, never a charge.
    const late = answers.filter((a) => a.status === 502);
    const statuses = JSON.stringify(answers.map((a) => [a.status, a.body.error]));
    assert.equal(ok.length + refused.length + late.length, 4, statuses);
    assert.ok(ok.length >= 2, `the first two calls fit in the deadline: ${statuses}`);
    assert.ok(refused.length >= 1, `at most three 2 s plans start in time on one big worker: ${statuses}`);
    for (const r of refused) {
      assert.equal(r.body.error, 'overloaded');
      assert.match(r.body.message, /Nothing was charged/);
      assert.ok(Number(r.headers.get('Retry-After')) >= 1);
    }
    for (const r of late) {
      assert.equal(r.body.error, 'optimization_failed');
      assert.match(r.body.message, /Nothing was charged/);
    }
    const ledger = await server.ledgerOf(key);
    assert.equal(ledger.balance, 10_000 - STOPS * ok.length, 'only the answered plans are charged');
    assert.equal(ledger.sum, ledger.balance);
    // a call refused at admission wrote nothing; one admitted and then failed (late, or its solve refused by the
    // worker pool's queue: "busy with other routes") was debited when admitted and refunded when it failed
    const failedAfterAdmission =
      late.length + refused.filter((r) => /busy with other routes/.test(String(r.body.message))).length;
    const count = (reason: string) => ledger.reasons.filter((r) => r === reason).length;
    assert.deepEqual(
      { rows: ledger.reasons.length, debits: count('debit'), refunds: count('refund') },
      {
        rows: 1 + ok.length + 2 * failedAfterAdmission,
        debits: ok.length + failedAfterAdmission,
        refunds: failedAfterAdmission,
      },
      `the credit, one debit per answer, a debit and its refund per call failed after admission: ${statuses} ${JSON.stringify(ledger.reasons)}`,
    );
  } finally {
    await server.close();
  }
});

test('one key past its solver seconds in flight gets 429; another key’s optimize is served meanwhile', async () => {
  const server = await startTestServer({
    env: { ...env, REQUEST_DEADLINE_MS: '30000', SOLVER_KEY_SECONDS_IN_FLIGHT: '3' },
  });
  try {
    const big = await server.createKey('live', 10_000);
    const other = await server.createKey('live', 10_000);
    const [first, second, small] = await Promise.all([
      server.request('POST', '/api/v1/plans', { key: big, body: plan }),
      server.request('POST', '/api/v1/plans', { key: big, body: plan }),
      server.request('POST', '/api/v1/optimize', {
        key: other,
        body: { start: PARIS_START, stops: coordinateStops(20) },
      }),
    ]);
    const statuses = [first.status, second.status].sort();
    assert.deepEqual(statuses, [200, 429], 'two 2 s plans exceed the key’s 3 s');
    const limited = first.status === 429 ? first : second;
    assert.equal(limited.body.error, 'rate_limited');
    assert.match(limited.body.message, /3 s of solving/);
    assert.ok(Number(limited.headers.get('Retry-After')) >= 1);
    assert.equal(small.status, 200);
    assert.equal((await server.ledgerOf(big)).balance, 10_000 - STOPS);
  } finally {
    await server.close();
  }
});
