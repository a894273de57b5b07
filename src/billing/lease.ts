/**
 * This process's instance lease. At start it takes a random instance id and
 * writes a lease row (id, host, pid, port, started, heartbeat); every
 * heartbeat renews the row and, in the same transaction, runs the recovery
 * sweep: leases that missed their expiry are ended and the charges they held
 * are given back. Charges (pending debits, sandbox reservations,
 * Idempotency-Key claims) are stamped with the id, so recovery never touches
 * the charges of a live instance, whatever its host or port.
 *
 * A process that stalls past its expiry (a long pause, a frozen VM) may find
 * its lease ended by another instance when it wakes: the calls it had in
 * flight can no longer be settled (they answer 502 and were refunded), and it
 * continues under a new lease.
 */
import { randomBytes } from 'node:crypto';
import type { LeaseHolder, RecoveryReport, Store } from '../store/types.js';
import type { Clock } from './billing.js';

/** Who a new charge belongs to, and whether such a charge was given back because its lease was lost. */
export interface ChargeOwner {
  /** The instance id to stamp on a charge taken now (renews the lease first if a stall left it stale). */
  current(): Promise<string>;
  /** True when charges stamped with `instanceId` were given back by another instance because that lease lapsed. */
  lost(instanceId: string): Promise<boolean>;
}

/** A fixed owner without a lease (tools and tests); its charges are only given back past their deadline. */
export function fixedOwner(instanceId: string): ChargeOwner {
  return { current: async () => instanceId, lost: async () => false };
}

export interface LeaseTiming {
  /** A lease not renewed for this long is expired; the next sweep of any instance settles it. */
  expiryMs: number;
  /** How often the lease is renewed (and the recovery sweep runs). */
  heartbeatMs: number;
}

/** What the lease tells the rest of the service (logs, metrics). */
export interface LeaseEvents {
  /** A sweep gave something back or settled a dead instance's lease. */
  recovered?(report: RecoveryReport, by: string): void;
  /** This instance's lease had been settled by another instance; it now runs as `nextId`. */
  lost?(previousId: string, nextId: string, sinceRenewalMs: number): void;
  /** A heartbeat failed (the database is unreachable); the next one retries. */
  failed?(err: unknown): void;
}

export const newInstanceId = (): string => randomBytes(6).toString('hex');

export class InstanceLease implements ChargeOwner {
  private id: string;
  private renewedAtMs: number;
  private readonly lostIds = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<RecoveryReport> | null = null;
  private released = false;

  private constructor(
    private readonly store: Store,
    private readonly holder: Omit<LeaseHolder, 'instanceId'>,
    private readonly timing: LeaseTiming,
    private readonly events: LeaseEvents,
    private readonly clock: Clock,
    id: string,
    renewedAtMs: number,
  ) {
    this.id = id;
    this.renewedAtMs = renewedAtMs;
  }

  /** Writes a new lease row for this process. */
  static async acquire(
    store: Store,
    holder: Omit<LeaseHolder, 'instanceId'>,
    timing: LeaseTiming,
    events: LeaseEvents = {},
    clock: Clock = () => new Date(),
  ): Promise<InstanceLease> {
    const now = clock();
    const id = newInstanceId();
    await store.acquireLease({ instanceId: id, ...holder }, now, now.getTime() + timing.expiryMs);
    return new InstanceLease(store, holder, timing, events, clock, id, now.getTime());
  }

  get instanceId(): string {
    return this.id;
  }

  async current(): Promise<string> {
    // a stall (or failing heartbeats) let the lease age: renew before stamping a new charge with it
    if (this.clock().getTime() - this.renewedAtMs > this.timing.expiryMs / 2) await this.beat();
    return this.id;
  }

  async lost(instanceId: string): Promise<boolean> {
    if (!this.lostIds.has(instanceId) && instanceId === this.id) await this.beat();
    return this.lostIds.has(instanceId);
  }

  /** Renews the lease and runs the recovery sweep, in one transaction; concurrent callers share one run. */
  beat(): Promise<RecoveryReport> {
    this.beating ??= this.renewAndSweep().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  /** Beats every `heartbeatMs` until released. */
  start(): void {
    if (this.timer || this.released) return;
    this.timer = setInterval(() => {
      this.beat().catch((err) => this.events.failed?.(err));
    }, this.timing.heartbeatMs);
    this.timer.unref();
  }

  /** After draining: stops the heartbeat, gives back whatever is still pending under this id, ends the lease. */
  async release(): Promise<RecoveryReport | null> {
    if (this.released) return null;
    this.released = true;
    clearInterval(this.timer);
    await this.beating?.catch(() => {});
    const report = await this.store.releaseLease(this.id, this.clock());
    if (report.refunded.length + report.releasedSandbox + report.releasedIdempotencyClaims > 0)
      this.events.recovered?.(report, this.id);
    return report;
  }

  private async renewAndSweep(): Promise<RecoveryReport> {
    const now = this.clock();
    const by = this.id;
    const report = await this.store.recoverCharges({ now, by, renewUntilMs: now.getTime() + this.timing.expiryMs });
    if (report.renewed === false && !this.released) {
      // another instance settled our lease while we were stalled: what we held was given back; start afresh
      const sinceRenewalMs = now.getTime() - this.renewedAtMs;
      this.lostIds.add(by);
      const nextId = newInstanceId();
      const at = this.clock();
      await this.store.acquireLease({ instanceId: nextId, ...this.holder }, at, at.getTime() + this.timing.expiryMs);
      this.id = nextId;
      this.renewedAtMs = at.getTime();
      this.events.lost?.(by, nextId, sinceRenewalMs);
    } else if (report.renewed) {
      this.renewedAtMs = now.getTime();
    }
    if (
      report.refunded.length + report.releasedSandbox + report.releasedIdempotencyClaims + report.settledLeases.length >
      0
    ) {
      this.events.recovered?.(report, by);
    }
    return report;
  }
}
