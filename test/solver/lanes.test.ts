/**
 * The solver lanes (src/solver/lanes.ts): who gets a worker next, and the estimate of when a new solve
 * could start. A fake clock and fake solves (a start callback), so only the order is asserted.
 */
import { strict as assert } from 'node:assert';
import { mock, test } from 'node:test';
import { SolverLanes, type LaneTicket } from '../../src/solver/lanes.js';

function lanes(workers = 2, smallWorkers = 1) {
  let now = 0;
  const l = new SolverLanes({ workers, smallWorkers, smallMs: 1000 }, () => now);
  const started: string[] = [];
  const submit = (key: string, costMs: number, name: string): LaneTicket => {
    const t = l.reserve(key, costMs);
    t.ready(costMs, () => started.push(name));
    return t;
  };
  return { l, started, submit, advance: (ms: number) => (now += ms) };
}

test('a small solve gets the kept worker while big ones of another key wait', () => {
  const { started, submit } = lanes();
  submit('a', 10_000, 'big1');
  submit('a', 10_000, 'big2');
  submit('a', 10_000, 'big3');
  assert.deepEqual(started, ['big1'], 'big work runs on the workers not kept for small work');
  submit('b', 250, 'small');
  assert.deepEqual(started, ['big1', 'small']);
});

test('small work goes first when a worker frees; big work never takes the kept worker', () => {
  const { started, submit } = lanes();
  const big1 = submit('a', 10_000, 'big1');
  const small1 = submit('b', 250, 'small1');
  submit('a', 10_000, 'big2');
  submit('c', 250, 'small2');
  assert.deepEqual(started, ['big1', 'small1']);
  small1.finished();
  assert.deepEqual(started, ['big1', 'small1', 'small2'], 'the small worker takes small work, not big2');
  big1.finished();
  assert.deepEqual(started, ['big1', 'small1', 'small2', 'big2']);
});

test('per-key round-robin: a second key is served before the first key’s backlog', () => {
  const { started, submit } = lanes(1, 0);
  const a1 = submit('a', 5000, 'a1');
  submit('a', 5000, 'a2');
  submit('a', 5000, 'a3');
  const b1 = submit('b', 5000, 'b1');
  submit('a', 5000, 'a4');
  a1.finished();
  b1.finished();
  assert.deepEqual(started, ['a1', 'b1', 'a2']);
});

test('a reserved entry waits for its solve without blocking others, and counts in the estimate', () => {
  const { l, started, submit } = lanes(2, 1);
  const reserved = l.reserve('a', 10_000); // building its matrix
  assert.equal(l.estimateStartMs('b', 10_000), 10_000, 'a new big solve would wait for the reserved one');
  submit('b', 10_000, 'b1');
  assert.deepEqual(started, ['b1'], 'the reserved entry does not hold the worker');
  reserved.release();
  assert.equal(l.queued(), 0);
});

test('the start estimate follows the running solves and the queue ahead', () => {
  const { l, submit, advance } = lanes(2, 1);
  assert.equal(l.estimateStartMs('a', 10_000), 0);
  submit('a', 10_000, 'big1');
  advance(4000);
  assert.equal(l.estimateStartMs('a', 10_000), 6000, 'what is left of the running one');
  submit('a', 10_000, 'big2');
  assert.equal(l.estimateStartMs('a', 10_000), 16_000);
  assert.equal(l.estimateStartMs('b', 250), 0, 'small work has its own worker');
  assert.equal(l.keyCostInFlightMs('a'), 16_000);
});

test('release of a waiting entry takes it out of the queue; a running one keeps its worker until it ends', () => {
  const { l, started, submit } = lanes(1, 0);
  const running = submit('a', 5000, 'a1');
  const waiting = submit('a', 5000, 'a2');
  waiting.release();
  assert.equal(l.waiting(), 0);
  running.release();
  submit('b', 5000, 'b1');
  assert.deepEqual(started, ['a1'], 'the worker is still busy');
  running.finished();
  assert.deepEqual(started, ['a1', 'b1']);
});

test('a solve that waited gets, when it starts, what is left before its deadline less the answer and the overrun; schedule counts it so', () => {
  const { l, advance } = lanes(2, 1);
  const deadline = { msLeft: 30_000, answerMs: 500, minMs: 5000 };
  const starts: number[] = [];
  const tickets = [0, 1, 2].map(() => l.reserve('a', 10_000, deadline));
  tickets.forEach((t) => t.ready(10_000, () => starts.push(t.timeLimitAtStart(10_000))));
  assert.deepEqual(starts, [10_000]);
  advance(10_000);
  tickets[0]!.finished();
  advance(12_000); // the second ran 12 s (a solve's time limit is a bound of the search, not of the call)
  tickets[1]!.finished();
  // the third starts at 22 s: 30 - 0.5 - 22 = 7.5 s are left, of which the solver's 10 % overrun takes its share
  assert.deepEqual(starts, [10_000, 10_000, 6818]);
  const estimate = l.schedule('b', 10_000, deadline);
  assert.equal(estimate.startMs, 6818, 'the cut time limit is what is left of the running solve');
  assert.equal(estimate.fits, true);
  assert.equal(l.schedule('b', 10_000, { ...deadline, msLeft: 12_000 }).fits, false, '6.8 + 5 × 1.1 + 0.5 > 12');
});

test('a solve without a deadline keeps its time limit', () => {
  const { l } = lanes(1, 0);
  const t = l.reserve('a', 10_000);
  let limit = 0;
  t.ready(10_000, () => (limit = t.timeLimitAtStart(10_000)));
  assert.equal(limit, 10_000);
});

test('untilNear lets a reserved entry go once its solve could start within the lead, and at its release', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { l, advance } = lanes(2, 1);
    const first = l.reserve('a', 10_000);
    first.ready(10_000, () => {});
    const second = l.reserve('a', 10_000);
    const third = l.reserve('a', 10_000);
    const gone: string[] = [];
    void second.untilNear(2000).then(() => gone.push('second'));
    void third.untilNear(2000).then(() => gone.push('third'));
    await first.untilNear(2000); // handed over already: at once
    await flush();
    assert.deepEqual(gone, [], 'the second could start in 10 s, the third in 20 s');
    advance(8000);
    mock.timers.tick(8000);
    await flush();
    assert.deepEqual(gone, ['second'], '2 s before its estimated start');
    third.release();
    await flush();
    assert.deepEqual(gone, ['second', 'third'], 'a released entry waits no more');
  } finally {
    mock.timers.reset();
  }
});

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
