/**
 * What every request to one outside geocoding service goes through, so that the service is
 * respected and its failures cost little:
 *
 *   circuit breaker (cockatiel) → 429 back-off → rate limit (SlidingWindowLimiter) → the request
 *
 * - Circuit breaker: after `breakerFailures` consecutive service failures (no answer, 5xx, 429 after
 *   the back-off, malformed body, unexpected status) the engine is skipped for `breakerCooldownMs`:
 *   every lookup fails at once with a GeocoderError (`skipped`), so the chain falls through to the
 *   next engine without waiting. After the cool-down one trial request decides: success closes the
 *   breaker, failure opens it for another cool-down (lookups arriving meanwhile wait for that trial).
 *   A 400 (the service refused this query) is the caller's problem, not the service's: not counted;
 *   nor is a batch answer that could not be used (its addresses are then asked one by one).
 * - 429 Too Many Requests: the engine's limiter pauses for Retry-After (1 s, then 2 s when absent),
 *   so that no other lookup of this process hits the service meanwhile, then the request is tried
 *   again, at most `maxAttempts` times in all. A pause longer than `maxWaitMs` (the request timeout)
 *   is not waited for: the lookup fails now and the chain falls through.
 */
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { GeoLogger } from '../logger.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { GeocoderError } from './types.js';

export interface GuardSettings {
  /** Requests per second allowed at the service; 0 or absent = no limit. */
  ratePerSecond?: number;
  /** Consecutive failures that open the breaker; default 3. */
  breakerFailures?: number;
  /** How long an open breaker skips the engine, ms; default 30 000. */
  breakerCooldownMs?: number;
  /** Longest a lookup waits for a 429 pause before giving up on the engine, ms; default 5 000. */
  maxWaitMs?: number;
  /** Tries of one request when the service answers 429; default 3. */
  maxAttempts?: number;
  logger?: GeoLogger;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

const DEFAULT_429_BACKOFF_MS = 1000;

/**
 * Service failures count toward opening the breaker; a query refused as bad (400) does not, nor does
 * an unusable batch answer (the single requests that follow it are counted instead).
 */
export function isServiceFailure(err: Error): boolean {
  return err instanceof GeocoderError && err.status !== 400 && !err.unusableBatch;
}

export class EngineGuard {
  readonly limiter: SlidingWindowLimiter;
  private readonly breaker: CircuitBreakerPolicy;
  private readonly maxWaitMs: number;
  private readonly maxAttempts: number;
  private readonly failuresToOpen: number;
  private readonly cooldownMs: number;
  private openedAt = 0;

  constructor(
    readonly engine: string,
    settings: GuardSettings = {},
  ) {
    const rate = settings.ratePerSecond ?? 0;
    this.limiter = new SlidingWindowLimiter(rate > 0 ? rate : Number.POSITIVE_INFINITY, 1000);
    this.failuresToOpen = settings.breakerFailures ?? 3;
    this.cooldownMs = settings.breakerCooldownMs ?? 30_000;
    this.maxWaitMs = settings.maxWaitMs ?? 5000;
    this.maxAttempts = settings.maxAttempts ?? 3;
    this.breaker = circuitBreaker(handleWhen(isServiceFailure), {
      halfOpenAfter: this.cooldownMs,
      breaker: new ConsecutiveBreaker(this.failuresToOpen),
    });
    const log = settings.logger;
    this.breaker.onBreak((reason) => {
      this.openedAt = Date.now();
      const err = 'error' in reason ? reason.error : undefined;
      log?.warn(
        {
          provider: engine,
          breaker: 'open',
          cooldownMs: this.cooldownMs,
          err: err ? { message: err.message } : undefined,
        },
        `geocoding: ${engine} failed ${this.failuresToOpen} times in a row; skipped for ${Math.round(this.cooldownMs / 1000)} s`,
      );
    });
    this.breaker.onHalfOpen(() =>
      log?.info({ provider: engine, breaker: 'half-open' }, `geocoding: trying ${engine} again`),
    );
    this.breaker.onReset(() =>
      log?.info({ provider: engine, breaker: 'closed' }, `geocoding: ${engine} answers again`),
    );
  }

  get state(): BreakerState {
    const s = this.breaker.state;
    return s === CircuitState.Closed ? 'closed' : s === CircuitState.HalfOpen ? 'half-open' : 'open';
  }

  /** Runs one request to the service under the breaker, the 429 back-off and the rate limit. */
  async run<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await this.breaker.execute(() => this.withBackoff(request, signal), signal);
    } catch (err) {
      if (err instanceof BrokenCircuitError) {
        const retryInS = Math.max(0, Math.ceil((this.openedAt + this.cooldownMs - Date.now()) / 1000));
        throw new GeocoderError(
          this.engine,
          `skipped after ${this.failuresToOpen} consecutive failures; next try in ${retryInS} s`,
          { unreachable: true, cause: err },
        );
      }
      throw err;
    }
  }

  private async withBackoff<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const pause = this.limiter.pausedForMs();
      if (pause > this.maxWaitMs) {
        throw new GeocoderError(
          this.engine,
          `the service asked to wait ${Math.ceil(pause / 1000)} s (HTTP 429); not waiting`,
          { status: 429, retryAfterMs: pause },
        );
      }
      try {
        return await this.limiter.schedule(request, signal);
      } catch (err) {
        if (!(err instanceof GeocoderError) || err.status !== 429 || attempt >= this.maxAttempts) throw err;
        const waitMs = err.retryAfterMs ?? DEFAULT_429_BACKOFF_MS * 2 ** (attempt - 1);
        this.limiter.pause(waitMs);
        if (waitMs > this.maxWaitMs) throw err;
      }
    }
  }
}
