/**
 * Client-side rate limit for one outside service: at most `limit` requests in any window of
 * `windowMs`, as the SERVICE counts them.
 *
 * Why not p-throttle or bottleneck: they count a request when it starts. The service counts it when
 * it arrives, and network or event-loop delays can bunch requests that started a full window apart
 * (a burst delayed by 5 ms, the next one not), so a start-based limiter set to 50/s can be seen at 51.
 * Here a request holds its slot from its start until one window after its answer. The service sees a
 * request between our start and our answer, so two requests it sees within one window were both
 * holding a slot when the later one started: it can never count more than `limit` in a window,
 * whatever the latency. The price is a little throughput (limit per window + latency).
 *
 * `pause(ms)` holds every new request back (HTTP 429 Retry-After). Waiters are served first come,
 * first served; a waiter whose signal aborts leaves the queue.
 */
export class SlidingWindowLimiter {
  private inFlight = 0;
  /** When each finished request frees its slot (answer time + window), ascending. */
  private readonly frees: number[] = [];
  private readonly waiters: Array<{ resolve: () => void }> = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly limit: number,
    readonly windowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (limit !== Number.POSITIVE_INFINITY && (!Number.isInteger(limit) || limit < 1)) {
      throw new RangeError('SlidingWindowLimiter: limit must be an integer >= 1 (or Infinity: no limit, pauses only)');
    }
    if (!(windowMs > 0)) throw new RangeError('SlidingWindowLimiter: windowMs must be > 0');
  }

  /** Runs `fn` once a slot is free (and no pause is in force). Rejects with the signal's reason if it aborts while waiting. */
  async schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.inFlight--;
      if (this.limit !== Number.POSITIVE_INFINITY) this.frees.push(this.now() + this.windowMs);
      this.pump();
    }
  }

  /** No request starts before `ms` from now (a longer pause already in force is kept). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
    this.pump();
  }

  /** Milliseconds until the pause ends (0 when none). */
  pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  private used(now: number): number {
    if (this.limit === Number.POSITIVE_INFINITY) return this.inFlight;
    while (this.frees.length > 0 && this.frees[0]! <= now) this.frees.shift();
    return this.inFlight + this.frees.length;
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const now = this.now();
    if (this.waiters.length === 0 && now >= this.pausedUntil && this.used(now) < this.limit) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
        this.pump();
      };
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }

  /** Starts every waiter that fits now, then sleeps until the next slot frees or the pause ends. */
  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const now = this.now();
    while (this.waiters.length > 0 && now >= this.pausedUntil && this.used(now) < this.limit) {
      this.inFlight++;
      this.waiters.shift()!.resolve();
    }
    if (this.waiters.length === 0) return;
    // in-flight requests wake the queue when they finish; otherwise the earliest freed slot or the end of the pause
    const wakeAt = now < this.pausedUntil ? this.pausedUntil : this.frees[0];
    if (wakeAt !== undefined) this.timer = setTimeout(() => this.pump(), Math.max(1, Math.ceil(wakeAt - now)));
  }
}
