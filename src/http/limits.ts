/**
 * Per-instance abuse limits (in memory; each service instance enforces its own):
 * failed authentications per client address, and concurrent calls per live key.
 */
import { tooManyRequests, type ApiError } from '../errors.js';

const rateLimited = (message: string, limit: number, retryAfterS: number): ApiError =>
  tooManyRequests('rate_limited', message, { limit, resetSeconds: retryAfterS });

/** Counts failures per address in a sliding window; past `max` the address is refused until the window frees up. */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number[]>();
  constructor(private readonly max: number, private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  check(address: string): void {
    const recent = this.recent(address);
    if (recent.length >= this.max) {
      throw rateLimited('Too many failed authentications from this address; wait before trying again.', this.max, (recent[0] + this.windowMs - this.now()) / 1000);
    }
  }

  fail(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.set(address, recent);
    if (this.failures.size > 10_000) this.prune();
  }

  private recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(address) ?? []).filter((t) => t > since);
  }

  private prune(): void {
    for (const address of [...this.failures.keys()]) if (this.recent(address).length === 0) this.failures.delete(address);
  }
}

/** At most `max` calls in flight per key. */
export class KeyConcurrency {
  private readonly inFlight = new Map<number, number>();
  constructor(private readonly max: number) {}

  acquire(keyId: number): () => void {
    const current = this.inFlight.get(keyId) ?? 0;
    if (current >= this.max) throw rateLimited(`At most ${this.max} calls may run at once with one key; wait for one to finish.`, this.max, 1);
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
