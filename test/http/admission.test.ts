/**
 * Admission over HTTP, on the real pool: plans the solver cannot finish before the request deadline are
 * refused at once with 503 overloaded and Retry-After, charged nothing; one key's solver seconds in
 * flight are bounded (429), another key's small call is still served. Behaviour only: which answers
 * come, never how fast.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer } from '../helpers/server.js';

// a 100-stop plan's budget is 2 s (20 ms per stop), big work (over 500 ms); one worker takes big work
const env = {
  REQUEST_DEADLINE_MS: '5000',
  PLANS_SOLVER_MS_PER_STOP: '20',
  SOLVER_SMALL_SOLVE_MS: '500',
  SOLVER_POOL_SIZE: '2',
  SOLVER_SMALL_WORKERS: '1',
};
const plan = { vehicles: [{ id: 'v', start: PARIS_START }], stops: coordinateStops(100, 3) };

test('plans that could not finish before the deadline get 503 overloaded with Retry-After, charged nothing', async () => {
  const server = await startTestServer({ env });
  try {
    const key = await server.createKey('live', 10_000);
    // the first admitted plan holds the big lane for its 2 s budget: 2 + 2 + 0.1 + 1 s > 5 s for any other
    const answers = await Promise.all(
      [1, 2, 3].map(() => server.request('POST', '/api/v1/plans', { key, body: plan })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    assert.equal(ok.length + refused.length, 3, JSON.stringify(answers.map((a) => [a.status, a.body])));
    assert.ok(refused.length >= 1, 'at most one 2 s plan fits in a 5 s deadline on one big worker');
    for (const r of refused) {
      assert.equal(r.body.error, 'overloaded');
      assert.match(r.body.message, /Nothing was charged/);
      assert.ok(Number(r.headers.get('Retry-After')) >= 1);
    }
    const ledger = await server.ledgerOf(key);
    assert.equal(ledger.balance, 10_000 - 100 * ok.length, 'only the answered plans are charged');
    assert.equal(ledger.sum, ledger.balance);
    assert.equal(
      ledger.reasons.length,
      1 + ok.length,
      'the credit and one debit per answer: a refused call wrote nothing',
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
    assert.equal((await server.ledgerOf(big)).balance, 10_000 - 100);
  } finally {
    await server.close();
  }
});
