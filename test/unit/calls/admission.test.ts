/**
 * Admission (src/calls/admission.ts): the refusals, before anything is built, on a fake clock. Timing
 * is the lanes' arithmetic here, never a measured duration.
 */
import { strict as assert } from 'node:assert';
import { mock, test } from 'node:test';
import { Admission, MATRIX_BYTES_PER_CELL } from '../../../src/calls/admission.js';
import { DomainError } from '../../../src/errors.js';
import { SolverLanes } from '../../../src/solver/lanes.js';

function admission(
  settings: { keySolverMsInFlight?: number; memoryBytes?: number; maxQueue?: number; collectGarbage?: () => void } = {},
) {
  const lanes = new SolverLanes({ workers: 2, smallWorkers: 1, smallMs: 1000 }, () => 0);
  const a = new Admission(lanes, {
    keySolverMsInFlight: settings.keySolverMsInFlight ?? 1_000_000,
    memoryBytes: settings.memoryBytes ?? 1e12,
    maxQueue: settings.maxQueue ?? 100,
    budgets: { '/plans': (stops) => stops * 10, '/optimize': () => 250 },
    collectGarbage: settings.collectGarbage ?? (() => {}),
  });
  const plan = (key: string, stops = 1000, msLeft = 30_000) =>
    a.admit({ key, path: '/plans', stops, locations: stops + 1, msLeft });
  return { a, lanes, plan };
}

const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DomainError, String(err));
    return err;
  }
  assert.fail('expected a refusal');
};

test('a call that could not get half its budget before its deadline is refused with 503 overloaded and a Retry-After', () => {
  const { plan } = admission();
  plan('a'); // starts at once, 10 s
  plan('b'); // starts after 10 s, 10 s
  // starts after 20 s: (30 - 20 - 0.5 for the answer) / 1.1 for the solver's overrun = 8.6 s, at least half its budget
  plan('c');
  const err = refusal(() => plan('d')); // would start after 28.6 s: nothing left
  assert.equal(err.code, 'overloaded');
  assert.equal(err.status, 503);
  assert.equal(err.retryAfterSeconds, 5, 'a 28.6 s start against a latest start of 30 - 0.5 - 5 × 1.1 = 24 s');
  assert.match(err.message, /at least 5 s of solving/);
  assert.match(err.message, /Nothing was charged/);
});

test('a call that would overtake admitted ones (round-robin) and push one past its deadline is refused', () => {
  const { plan } = admission();
  plan('a');
  plan('a');
  plan('a'); // starts after 20 s with 8.6 s
  // key b would go second (round-robin), and a's third would start after 28.6 s
  const err = refusal(() => plan('b'));
  assert.equal(err.code, 'overloaded');
  assert.match(err.message, /ahead of 1 admitted call/);
  assert.ok(plan('b', 50), 'small work is another lane');
});

test('small calls are admitted whatever the big lane holds', () => {
  const { a, plan } = admission();
  plan('a');
  plan('a');
  assert.ok(a.admit({ key: 'b', path: '/optimize', stops: 20, locations: 21, msLeft: 30_000 }));
  assert.ok(plan('b', 50), 'a 50-stop plan (500 ms) is small work');
});

test('an endpoint without a budget is not admitted here', () => {
  const { a } = admission();
  assert.equal(a.admit({ key: 'a', path: '/other', stops: 5, locations: 6, msLeft: 30_000 }), undefined);
});

test('a released call no longer counts ahead of others', () => {
  const { plan } = admission();
  const first = plan('a')!;
  plan('b');
  plan('c');
  refusal(() => plan('d'));
  first.release();
  assert.ok(plan('d'));
});

test('per-key solver seconds in flight: the key past its limit gets 429, another key is let in', () => {
  const { plan } = admission({ keySolverMsInFlight: 15_000 });
  plan('a');
  const err = refusal(() => plan('a'));
  assert.equal(err.code, 'rate_limited');
  assert.match(err.message, /15 s of solving/);
  assert.ok(plan('b'));
});

test('a call alone is let in even when it needs more than the per-key limit', () => {
  const { plan } = admission({ keySolverMsInFlight: 1000 });
  assert.ok(plan('a'));
});

test('matrix memory: calls past SOLVER_MEMORY_MB wait; a call alone is always let in', () => {
  const oneBig = 1001 * 1001 * MATRIX_BYTES_PER_CELL;
  const { plan } = admission({ memoryBytes: oneBig * 1.5 });
  const first = plan('a')!;
  const err = refusal(() => plan('b'));
  assert.equal(err.code, 'overloaded');
  assert.match(err.message, /SOLVER_MEMORY_MB/);
  first.release();
  assert.ok(plan('b'));
});

test('a full queue refuses with 503 overloaded; calls the idle workers take at once do not count', () => {
  const { plan } = admission({ maxQueue: 0 });
  plan('a', 50);
  plan('b', 50);
  const err = refusal(() => plan('c', 50));
  assert.equal(err.code, 'overloaded');
  assert.match(err.message, /already waiting/);
});

test('a call that could start at once is let in even when its deadline is shorter than its budget', () => {
  const { plan } = admission();
  assert.ok(plan('a', 1000, 5000), 'the budget rule shortens its solve');
  assert.equal(refusal(() => plan('b', 1000, 5000)).code, 'overloaded');
});

test('after big calls, one full collection once the service has been idle a moment; none after small calls', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let collections = 0;
    const { a, plan } = admission({ collectGarbage: () => collections++ });
    a.admit({ key: 'a', path: '/optimize', stops: 20, locations: 21, msLeft: 30_000 })!.release();
    mock.timers.tick(10_000);
    assert.equal(collections, 0, 'a small call leaves nothing worth collecting');
    const first = plan('a')!;
    const second = plan('b')!;
    first.release();
    mock.timers.tick(10_000);
    assert.equal(collections, 0, 'a call is still in progress');
    second.release();
    mock.timers.tick(1000);
    assert.equal(collections, 0, 'not before the service has been idle a moment');
    mock.timers.tick(1000);
    assert.equal(collections, 1);
    mock.timers.tick(60_000);
    assert.equal(collections, 1, 'once');
  } finally {
    mock.timers.reset();
  }
});
