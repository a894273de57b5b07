/**
 * Free test keys handed out by the web console, with abuse limits per client
 * address and per e-mail address over a rolling 24 hours (checked and recorded
 * together with the key creation, in one transaction).
 */
import { tooManyRequests } from '../errors.js';
import { newKeyMaterial } from '../billing/keys.js';
import type { ApiKeyRecord, Store } from '../store/types.js';

export interface ConsoleKeyLimits {
  perIpPerDay: number;
  perEmailPerDay: number;
}

const DAY_MS = 86_400_000;

export class ConsoleTestKeys {
  constructor(
    private readonly store: Store,
    private readonly limits: ConsoleKeyLimits,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async issue(email: string, clientIp: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const { key, keyHash, last4 } = newKeyMaterial('test');
    const nowMs = this.clock().getTime();
    const outcome = await this.store.issueConsoleTestKey({
      keyHash,
      last4,
      email: email.trim().toLowerCase(),
      clientIp,
      nowMs,
      sinceMs: nowMs - DAY_MS + 1,
      maxPerIp: this.limits.perIpPerDay,
      maxPerEmail: this.limits.perEmailPerDay,
    });
    if (!outcome.ok) {
      const resetMs = outcome.oldestMs + DAY_MS;
      const who =
        outcome.exceeded === 'ip'
          ? `this network address (${this.limits.perIpPerDay} per 24 hours)`
          : `this e-mail address (${this.limits.perEmailPerDay} per 24 hours)`;
      throw tooManyRequests(
        'rate_limited',
        `Too many test keys requested from ${who}. Try again after ${new Date(resetMs).toISOString()}.`,
        {
          limit: outcome.exceeded === 'ip' ? this.limits.perIpPerDay : this.limits.perEmailPerDay,
          resetSeconds: (resetMs - nowMs) / 1000,
        },
        { resetAt: new Date(resetMs).toISOString() },
      );
    }
    return { key, record: outcome.record };
  }
}
