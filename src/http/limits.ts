/**
 * Per-instance abuse limits, in memory (each service instance enforces its own):
 * failed authentications per client address, checkout sessions per address and
 * in total, and concurrent calls per live key.
 *
 * Counting per address uses a sliding-window estimate (the current fixed window
 * plus the previous one weighted by how much of it still overlaps), kept in a
 * fixed-size LRU map (lru-cache): O(1) per request, memory bounded by
 * RATE_LIMIT_TRACKED_ADDRESSES however many addresses an attacker uses. When
 * more addresses than that are active, the least recently seen are forgotten
 * first (they start again from zero). Stale entries are pruned from the LRU
 * end, a few on every count and all of them on a timer.
 */
import { LRUCache } from 'lru-cache';
import { tooManyRequests, type DomainError } from '../errors.js';

/** 429 rate_limited with Retry-After and the RateLimit headers (http/errors.ts). */
export const rateLimited = (message: string, limit: number, retryAfterS: number): DomainError =>
  tooManyRequests('rate_limited', message, { limit, resetSeconds: retryAfterS });

interface Window {
  /** Start of the current fixed window (a multiple of the window length). */
  start: number;
  current: number;
  previous: number;
  /** Last time this entry was counted: entries idle for two windows count for nothing and are pruned. */
  touched: number;
}

export interface WindowedCountsOptions {
  /** Events allowed per key within any window. */
  limit: number;
  windowMs: number;
  /** Keys tracked at most. */
  maxKeys: number;
  now?: () => number;
}

/** Stale entries removed from the LRU end on each count: keeps pruning O(1) per request. */
const PRUNE_PER_COUNT = 4;

export class WindowedCounts {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly windows: LRUCache<string, Window>;

  constructor(options: WindowedCountsOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.now = options.now ?? Date.now;
    this.windows = new LRUCache<string, Window>({ max: options.maxKeys });
    // the timer holds the counts weakly: a limiter nobody uses any more is collected and its timer stops
    const counts = new WeakRef(this);
    const timer: NodeJS.Timeout = setInterval(() => {
      const alive = counts.deref();
      if (alive) alive.prune(Number.POSITIVE_INFINITY);
      else clearInterval(timer);
    }, this.windowMs);
    timer.unref();
  }

  /** Keys tracked now (bounded by maxKeys). */
  get size(): number {
    return this.windows.size;
  }

  /** The sliding-window estimate of events for `key` in the last window. */
  estimate(key: string): number {
    const window = this.windows.peek(key);
    return window ? this.weighted(this.rolled(window, this.now())) : 0;
  }

  /** Counts one event for `key`; answers the estimate including it. */
  add(key: string): number {
    const now = this.now();
    const window = this.rolled(
      this.windows.get(key) ?? { start: this.windowStart(now), current: 0, previous: 0, touched: now },
      now,
    );
    window.current++;
    window.touched = now;
    this.windows.set(key, window);
    this.prune(PRUNE_PER_COUNT);
    return this.weighted(window);
  }

  /** Seconds until one more event for `key` stays within the limit. */
  retryAfterS(key: string): number {
    const window = this.windows.peek(key);
    if (!window) return 0;
    const now = this.now();
    const w = this.rolled(window, now);
    const room = this.limit - 1; // the estimate that leaves room for one more
    let freeAt: number;
    if (w.current > room) {
      // this window alone holds too many: once it ends it weighs less as the next one goes by
      freeAt = w.start + this.windowMs + this.windowMs * Math.max(0, 1 - room / w.current);
    } else if (w.previous > 0) {
      freeAt = w.start + this.windowMs * Math.max(0, 1 - (room - w.current) / w.previous);
    } else {
      freeAt = now;
    }
    return Math.max(0, (freeAt - now) / 1000);
  }

  /** Removes up to `max` entries idle for two windows, least recently counted first. */
  prune(max: number): void {
    const staleBefore = this.now() - 2 * this.windowMs;
    const stale: string[] = [];
    for (const entry of this.windows.rentries()) {
      const [key, window] = entry as [string, Window];
      if (stale.length >= max || window.touched >= staleBefore) break;
      stale.push(key);
    }
    for (const key of stale) this.windows.delete(key);
  }

  private windowStart(now: number): number {
    return now - (now % this.windowMs);
  }

  /** The window moved to `now`'s fixed window (a copy: peeking never changes an entry). */
  private rolled(window: Window, now: number): Window {
    const start = this.windowStart(now);
    if (start === window.start) return window;
    const previous = start - window.start === this.windowMs ? window.current : 0;
    return { start, current: 0, previous, touched: window.touched };
  }

  private weighted(window: Window): number {
    const overlap = 1 - (this.now() - window.start) / this.windowMs;
    return window.current + window.previous * Math.max(0, overlap);
  }
}

/**
 * Failed authentications per client address. Only failures are counted, and
 * only after the key was looked up: a valid key is always accepted, whatever
 * its neighbours (or everyone behind the same proxy) got wrong. Past the limit,
 * a failure answers 429 rate_limited instead of 401.
 */
export class FailedAuthLimiter {
  private readonly counts: WindowedCounts;

  constructor(max: number, windowMs: number, options: { maxAddresses?: number; now?: () => number } = {}) {
    this.counts = new WindowedCounts({
      limit: max,
      windowMs,
      maxKeys: options.maxAddresses ?? 100_000,
      now: options.now,
    });
  }

  /** Records a failure; throws 429 when the address is now past the limit. */
  fail(address: string): void {
    if (this.counts.add(address) > this.counts.limit) {
      throw rateLimited(
        'Too many failed authentications from this address; wait before trying again.',
        this.counts.limit,
        this.counts.retryAfterS(address),
      );
    }
  }

  /** Addresses tracked now (bounded). */
  get trackedAddresses(): number {
    return this.counts.size;
  }
}

export interface CheckoutLimits {
  perAddressPerMinute: number;
  perMinute: number;
  maxAddresses: number;
  now?: () => number;
}

/**
 * Checkout sessions per client address and in total, per rolling minute: each
 * session costs a call to the payment provider's API, whose own rate limit
 * real buyers need. Only sessions about to be created count.
 */
export class CheckoutLimiter {
  private readonly perAddress: WindowedCounts;
  private readonly total: WindowedCounts;

  constructor(limits: CheckoutLimits) {
    this.perAddress = new WindowedCounts({
      limit: limits.perAddressPerMinute,
      windowMs: 60_000,
      maxKeys: limits.maxAddresses,
      now: limits.now,
    });
    this.total = new WindowedCounts({ limit: limits.perMinute, windowMs: 60_000, maxKeys: 1, now: limits.now });
  }

  /** Takes one session for `address`, or throws 429 rate_limited with Retry-After. */
  take(address: string): void {
    if (this.perAddress.estimate(address) + 1 > this.perAddress.limit) {
      throw rateLimited(
        `At most ${this.perAddress.limit} checkout sessions per minute may be created from one address; try again shortly.`,
        this.perAddress.limit,
        this.perAddress.retryAfterS(address),
      );
    }
    if (this.total.estimate('all') + 1 > this.total.limit) {
      throw rateLimited(
        'Checkout is busy right now (too many sessions this minute); try again shortly.',
        this.total.limit,
        this.total.retryAfterS('all'),
      );
    }
    this.perAddress.add(address);
    this.total.add('all');
  }
}

/** At most `max` calls in flight per key. */
export class KeyConcurrency {
  private readonly inFlight = new Map<number, number>();
  constructor(private readonly max: number) {}

  acquire(keyId: number): () => void {
    const current = this.inFlight.get(keyId) ?? 0;
    if (current >= this.max)
      throw rateLimited(`At most ${this.max} calls may run at once with one key; wait for one to finish.`, this.max, 1);
    this.inFlight.set(keyId, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(keyId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(keyId);
      else this.inFlight.set(keyId, left);
    };
  }
}
