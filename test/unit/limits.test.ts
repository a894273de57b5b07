/** The in-memory limiters: sliding-window counts per key, bounded memory, O(1) per event. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { DomainError } from '../../src/errors.js';
import { errorHeaders } from '../../src/http/errors.js';
import { CheckoutLimiter, FailedAuthLimiter, WindowedCounts } from '../../src/http/limits.js';

function clock(start = 1_000_000_000_000) {
  let now = start;
  const fn = () => now;
  fn.advance = (ms: number) => {
    now += ms;
  };
  return fn;
}

const refused = (fn: () => void): DomainError => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DomainError);
    return err;
  }
  throw new Error('expected a refusal');
};

test('a sliding window: the previous minute weighs as much as it still overlaps', () => {
  const now = clock(60_000 * 1000);
  const counts = new WindowedCounts({ limit: 10, windowMs: 60_000, maxKeys: 100, now });
  for (let i = 0; i < 10; i++) counts.add('a');
  assert.equal(counts.estimate('a'), 10);
  now.advance(60_000 + 15_000); // a quarter into the next window
  assert.equal(counts.estimate('a'), 7.5);
  now.advance(45_000); // the old window no longer overlaps
  assert.equal(counts.estimate('a'), 0);
  assert.equal(counts.estimate('never-seen'), 0);
});

test('memory stays bounded however many addresses fail: the least recently seen are forgotten first', () => {
  const now = clock();
  const counts = new WindowedCounts({ limit: 3, windowMs: 60_000, maxKeys: 1_000, now });
  for (let i = 0; i < 20_000; i++) counts.add(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  assert.equal(counts.size, 1_000);
  assert.equal(counts.estimate('10.0.0.0'), 0, 'an early address was evicted');
  assert.equal(counts.estimate('10.0.78.31'), 1, 'the most recent ones are kept');
});

test('entries idle for two windows are pruned as new events arrive and on the timer', () => {
  const now = clock();
  const counts = new WindowedCounts({ limit: 3, windowMs: 1_000, maxKeys: 1_000, now });
  for (let i = 0; i < 100; i++) counts.add(`old-${i}`);
  now.advance(2_500);
  for (let i = 0; i < 10; i++) counts.add(`new-${i}`);
  assert.equal(counts.size, 100 + 10 - 4 * 10, 'each event removes up to four stale entries');
  counts.prune(Number.POSITIVE_INFINITY);
  assert.equal(counts.size, 10);
});

test('failed authentications: the failure past the limit is refused with a Retry-After that frees the address', () => {
  const now = clock(0);
  const limiter = new FailedAuthLimiter(5, 60_000, { maxAddresses: 100, now });
  for (let i = 0; i < 5; i++) limiter.fail('203.0.113.7');
  const err = refused(() => limiter.fail('203.0.113.7'));
  assert.equal(err.status, 429);
  assert.equal(err.code, 'rate_limited');
  const retryAfter = Number(errorHeaders(err)['Retry-After']);
  assert.ok(retryAfter >= 60 && retryAfter <= 120, String(retryAfter));
  limiter.fail('198.51.100.1'); // another address is not affected
  now.advance(retryAfter * 1000);
  limiter.fail('203.0.113.7');
});

test('checkout: per-address and global limits; a refused request is not counted', () => {
  const now = clock(0);
  const limiter = new CheckoutLimiter({ perAddressPerMinute: 2, perMinute: 3, maxAddresses: 100, now });
  limiter.take('a');
  limiter.take('a');
  assert.match(refused(() => limiter.take('a')).message, /from one address/);
  limiter.take('b');
  assert.match(refused(() => limiter.take('c')).message, /too many sessions this minute/);
  assert.match(refused(() => limiter.take('b')).message, /too many sessions this minute/);
  now.advance(120_000);
  limiter.take('a');
  limiter.take('c');
});
