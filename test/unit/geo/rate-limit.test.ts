import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingWindowLimiter } from '../../../src/geo/geocoding/rate-limit.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Most `times` within any window of `windowMs`. */
function maxInWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

test('the service never sees more than `limit` requests in a window, whatever the latency before and after it', async () => {
  const limiter = new SlidingWindowLimiter(5, 200);
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const arrivals: number[] = [];
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: 40 }, () =>
      limiter.schedule(async () => {
        starts.push(performance.now());
        await sleep(random() * 40); // on the way to the service
        arrivals.push(performance.now()); // what the service counts
        await sleep(random() * 40); // the answer on its way back
      }),
    ),
  );
  assert.equal(arrivals.length, 40);
  assert.ok(maxInWindow(arrivals, 200) <= 5, `the service saw ${maxInWindow(arrivals, 200)} in 200 ms`);
  assert.ok(maxInWindow(starts, 200) <= 5);
});

test('waiters start first come, first served; pause() holds every start back until it ends', async () => {
  const limiter = new SlidingWindowLimiter(2, 100);
  const order: number[] = [];
  const started: number[] = [];
  const t0 = performance.now();
  limiter.pause(300);
  assert.ok(limiter.pausedForMs() > 250);
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      limiter.schedule(async () => {
        order.push(i);
        started.push(performance.now() - t0);
      }),
    ),
  );
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
  assert.ok(started[0]! >= 295, `first start at ${started[0]} ms, the pause was 300 ms`);
  assert.equal(limiter.pausedForMs(), 0);
});

test("a waiter whose signal aborts leaves the queue with the signal's reason and never runs; the others still run", async () => {
  const limiter = new SlidingWindowLimiter(1, 100);
  const ran: string[] = [];
  const first = limiter.schedule(async () => {
    ran.push('first');
    await sleep(20);
  });
  const controller = new AbortController();
  const second = limiter.schedule(async () => {
    ran.push('second');
  }, controller.signal);
  const third = limiter.schedule(async () => {
    ran.push('third');
  });
  assert.equal(limiter.queued, 2);
  controller.abort(new Error('caller gone'));
  await assert.rejects(second, /caller gone/);
  await Promise.all([first, third]);
  assert.deepEqual(ran, ['first', 'third']);
  await assert.rejects(
    limiter.schedule(async () => 1, controller.signal),
    /caller gone/,
    'an already aborted signal is refused at once',
  );
});

test('no limit (Infinity): everything starts at once, pauses still apply', async () => {
  const limiter = new SlidingWindowLimiter(Number.POSITIVE_INFINITY, 1000);
  let inFlight = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 50 }, () =>
      limiter.schedule(async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await sleep(10);
        inFlight--;
      }),
    ),
  );
  assert.equal(most, 50);
  assert.throws(() => new SlidingWindowLimiter(0), /limit must be an integer >= 1/);
  assert.throws(() => new SlidingWindowLimiter(2.5), /limit must be an integer >= 1/);
});
