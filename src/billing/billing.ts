/**
 * What the API handlers call for money and quotas: authentication, live debits
 * and refunds, and the sandbox caps of test keys.
 */
import { DomainError, tooManyRequests, unauthorized, type RateLimitState } from '../errors.js';
import type { SandboxLimits } from '../config.js';
import type {
  ApiKeyRecord,
  KeyKind,
  NewJob,
  PendingMark,
  RecoveryReport,
  SettleCharge,
  Store,
} from '../store/types.js';
import { hashApiKey, newKeyMaterial, parseApiKey } from './keys.js';
import { MINUTE_MS, minuteWindowStart, nextParisMidnightMs, parisDay } from './sandbox-clock.js';
import { fixedOwner, type ChargeOwner } from './lease.js';

export type { ApiKeyRecord };

export type Clock = () => Date;

export interface Debit {
  debitId: number;
  stops: number;
  balance: number;
  /** The instance id the charge is stamped with. */
  owner: string;
}

export interface SandboxReservation {
  reservationId: number;
  stopsRemainingToday: number;
  /** The per-minute call window after this call, for the RateLimit headers. */
  minuteWindow: RateLimitState;
  owner: string;
}

export interface SandboxQuotas {
  sandboxStopsRemainingToday: number;
  sandboxCallsRemainingThisMinute: number;
}

/** The billing fields of an OptimizeResponse. */
export type ChargeFields =
  | { stopsCharged: number; stopsBalance: number }
  | { stopsCharged: 0; sandbox: true; sandboxStopsRemainingToday: number };

/** An asynchronous plan's job as its call orders it; the charge it carries is added when the charge is made final. */
export type JobOrder = Omit<NewJob, 'debitId' | 'sandboxReservationId'>;

export interface Charge {
  /** The billing fields of the response, known as soon as the charge is taken. */
  fields: ChargeFields;
  /** Test keys: the per-minute call window, sent as RateLimit headers. */
  rateLimit?: RateLimitState;
  /**
   * Makes the charge final; throws 502 if it was given back meanwhile (call past its deadline, or this instance's
   * lease lapsed). With `job` (an asynchronous plan), the job is created in the same transaction, carrying the charge.
   */
  settle(idempotency?: SettleCharge['idempotency'], job?: JobOrder): Promise<void>;
  cancel(): Promise<void>;
}

export interface IssuedKey {
  key: string;
  record: ApiKeyRecord;
}

/** Told about every stop that moves, for metrics. */
export interface BillingObserver {
  debited(stops: number): void;
  refunded(stops: number): void;
}

export interface BillingOptions {
  limits: SandboxLimits;
  clock?: Clock;
  observer?: BillingObserver;
  /**
   * How long a charge may stay unsettled (the request deadline plus a margin).
   * Past it the owner's own recovery sweep gives it back: its call can no longer complete.
   */
  chargeTtlMs?: number;
  /** Who charges belong to: the service passes its instance lease. */
  owner?: ChargeOwner;
  /** A fixed owner id instead of a lease (tools and tests). */
  instanceId?: string;
}

export class Billing {
  private readonly limits: SandboxLimits;
  private readonly clock: Clock;
  private readonly observer?: BillingObserver;
  private readonly chargeTtlMs: number;
  private readonly owner: ChargeOwner;

  constructor(
    private readonly store: Store,
    options: BillingOptions,
  ) {
    this.limits = options.limits;
    this.clock = options.clock ?? (() => new Date());
    this.observer = options.observer;
    this.chargeTtlMs = options.chargeTtlMs ?? 60_000;
    this.owner = options.owner ?? fixedOwner(options.instanceId ?? 'default');
  }

  /** Resolves a raw Authorization header to an active key, or throws 401. */
  async authenticate(authorization: string | undefined): Promise<ApiKeyRecord> {
    if (!authorization) throw unauthorized('Missing Authorization header: send "Authorization: Bearer <API_KEY>".');
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match) {
      const bare = parseApiKey(authorization.trim()) !== null;
      throw unauthorized(
        `Malformed Authorization header: expected "Bearer <API_KEY>"${bare ? '; put the word Bearer and a space before the key' : ''}.`,
      );
    }
    const token = match[1];
    const kind = parseApiKey(token);
    if (!kind)
      throw unauthorized(
        'Invalid API key: a key starts with svc_test_ or svc_live_ followed by 43 characters; copy it whole.',
      );
    const record = await this.store.findKeyByHash(hashApiKey(token));
    if (!record || record.kind !== kind) throw unauthorized('Invalid API key.');
    if (record.revokedAt) throw unauthorized('This API key has been revoked.');
    return record;
  }

  async issueKey(
    kind: KeyKind,
    options: { email?: string | null; stops?: number; reason?: 'purchase' | 'admin_credit' } = {},
  ): Promise<IssuedKey> {
    const stops = options.stops ?? 0;
    if (kind === 'test' && stops > 0) throw new RangeError('test keys hold no balance');
    const { key, keyHash, last4 } = newKeyMaterial(kind);
    const record = await this.store.createKey({
      kind,
      keyHash,
      last4,
      email: options.email ?? null,
      initialStops: stops,
      reason: options.reason ?? 'admin_credit',
      now: this.clock(),
    });
    return { key, record };
  }

  /**
   * Live keys: takes `stops` from the balance or throws 402 having taken nothing. `requestId` is the service's
   * own id of the call; `clientRequestId` the caller's X-Request-Id, stored beside it.
   */
  async debit(
    key: ApiKeyRecord,
    stops: number,
    requestId: string,
    clientRequestId: string | null = null,
  ): Promise<Debit> {
    const pending = await this.pendingMark();
    const outcome = await this.store.debit(key.id, stops, requestId, this.clock(), pending, clientRequestId);
    if (!outcome.ok) {
      throw new DomainError(
        'insufficient_stops',
        `This call needs ${stops} stops but the key's balance is ${outcome.balance}. Buy a pack to top up.`,
        { extra: { required: stops, balance: outcome.balance } },
      );
    }
    this.observer?.debited(stops);
    return { debitId: outcome.debitId, stops, balance: outcome.balance, owner: pending.owner };
  }

  /** Gives a debit back; safe to call more than once (only the first call refunds). */
  async refund(debit: Debit): Promise<{ refunded: boolean; balance: number }> {
    const outcome = await this.store.refund(debit.debitId, this.clock());
    if (outcome.refunded) this.observer?.refunded(debit.stops);
    return outcome;
  }

  /** Test keys: at most `maxStopsPerCall` stops in one call, else 400 sandbox_limit. */
  checkSandboxCallSize(stops: number): void {
    if (stops > this.limits.maxStopsPerCall) {
      throw new DomainError(
        'sandbox_limit',
        `Test keys accept at most ${this.limits.maxStopsPerCall} stops per call; this call has ${stops}. Use a live key for larger routes.`,
      );
    }
  }

  /**
   * Test keys: enforces the per-call stop limit (400 sandbox_limit), the
   * per-minute call cap and the per-Paris-day stop cap (429 sandbox_rate_limited),
   * and records the call. Rejected calls are not recorded.
   */
  async reserveSandbox(key: ApiKeyRecord, stops: number, requestId: string): Promise<SandboxReservation> {
    this.checkSandboxCallSize(stops);
    const pending = await this.pendingMark();
    const nowMs = this.clock().getTime();
    const outcome = await this.store.reserveSandbox({
      keyId: key.id,
      nowMs,
      windowStartMs: minuteWindowStart(nowMs),
      day: parisDay(nowMs),
      requestId,
      stops,
      callsPerMinute: this.limits.callsPerMinute,
      stopsPerDay: this.limits.stopsPerDay,
      pending,
    });
    if (!outcome.ok) {
      if (outcome.exceeded === 'minute') {
        const resetMs = (outcome.usage.oldestCallMs ?? nowMs) + MINUTE_MS;
        throw rateLimited(
          this.limits.callsPerMinute,
          resetMs,
          nowMs,
          `Test keys allow ${this.limits.callsPerMinute} calls per minute.`,
        );
      }
      throw rateLimited(
        this.limits.stopsPerDay,
        nextParisMidnightMs(nowMs),
        nowMs,
        `Test keys allow ${this.limits.stopsPerDay} stops per day (Europe/Paris); ${outcome.usage.stopsToday} used today, this call needs ${stops}.`,
      );
    }
    return {
      reservationId: outcome.reservationId,
      stopsRemainingToday: Math.max(0, this.limits.stopsPerDay - outcome.usage.stopsToday),
      minuteWindow: {
        limit: this.limits.callsPerMinute,
        remaining: this.limits.callsPerMinute - outcome.usage.callsInWindow,
        resetSeconds: ((outcome.usage.oldestCallMs ?? nowMs) + MINUTE_MS - nowMs) / 1000,
      },
      owner: pending.owner,
    };
  }

  /**
   * Takes what a call costs before any work: the live debit (402 when short)
   * or the sandbox reservation (400/429). The charge is then either settled
   * with the response (together with its Idempotency-Key record) or cancelled,
   * which gives everything back.
   */
  async openCharge(
    key: ApiKeyRecord,
    stops: number,
    requestId: string,
    clientRequestId: string | null = null,
  ): Promise<Charge> {
    if (key.kind === 'live') {
      const debit = await this.debit(key, stops, requestId, clientRequestId);
      return {
        fields: { stopsCharged: debit.stops, stopsBalance: debit.balance },
        settle: (idempotency, job) =>
          this.settle(
            { debitId: debit.debitId, idempotency, ...(job ? { job: { ...job, debitId: debit.debitId } } : {}) },
            debit.owner,
          ),
        cancel: async () => {
          await this.refund(debit);
        },
      };
    }
    const reservation = await this.reserveSandbox(key, stops, requestId);
    return {
      fields: { stopsCharged: 0, sandbox: true, sandboxStopsRemainingToday: reservation.stopsRemainingToday },
      rateLimit: reservation.minuteWindow,
      settle: (idempotency, job) =>
        this.settle(
          {
            sandboxReservationId: reservation.reservationId,
            idempotency,
            ...(job ? { job: { ...job, sandboxReservationId: reservation.reservationId } } : {}),
          },
          reservation.owner,
        ),
      cancel: () => this.releaseSandbox(reservation),
    };
  }

  private async settle(charge: SettleCharge, owner: string): Promise<void> {
    if (await this.store.settleCharge(charge)) return;
    if (await this.owner.lost(owner).catch(() => false)) {
      throw new DomainError(
        'optimization_failed',
        'The server running this call stalled for longer than its instance lease, so another ' +
          'instance took over its unfinished calls and gave this charge back; the route was not returned. Nothing was charged: retry the call.',
      );
    }
    throw new DomainError(
      'optimization_failed',
      'The call took too long to complete and its charge was given back. Nothing was charged.',
    );
  }

  async releaseSandbox(reservation: SandboxReservation): Promise<void> {
    await this.store.releaseSandbox(reservation.reservationId);
  }

  /** Settles a sandbox reservation outside a call (tests, tools). */
  async consumeSandbox(reservation: SandboxReservation): Promise<void> {
    await this.settle({ sandboxReservationId: reservation.reservationId }, reservation.owner);
  }

  private async pendingMark(): Promise<PendingMark> {
    const owner = await this.owner.current();
    return { untilMs: this.clock().getTime() + this.chargeTtlMs, owner };
  }

  /**
   * Gives back charges whose calls can no longer complete (`db recover`, tests):
   * those of instances whose lease expired or ended (expired leases are ended
   * here), and those without a lease past their deadline. `by` names the sweeper.
   */
  async recoverExpiredCharges(by = 'admin'): Promise<RecoveryReport> {
    const report = await this.store.recoverCharges({ now: this.clock(), by });
    this.countRefunds(report);
    return report;
  }

  /** Tells the observer about stops a recovery sweep gave back (the lease's own sweeps report here too). */
  countRefunds(report: RecoveryReport): void {
    for (const r of report.refunded) this.observer?.refunded(r.stops);
  }

  async sandboxQuotas(key: ApiKeyRecord): Promise<SandboxQuotas> {
    const nowMs = this.clock().getTime();
    const usage = await this.store.sandboxUsage({
      keyId: key.id,
      nowMs,
      windowStartMs: minuteWindowStart(nowMs),
      day: parisDay(nowMs),
    });
    return {
      sandboxStopsRemainingToday: Math.max(0, this.limits.stopsPerDay - usage.stopsToday),
      sandboxCallsRemainingThisMinute: Math.max(0, this.limits.callsPerMinute - usage.callsInWindow),
    };
  }
}

function rateLimited(limit: number, resetMs: number, nowMs: number, message: string): DomainError {
  const resetAt = new Date(resetMs).toISOString();
  return tooManyRequests(
    'sandbox_rate_limited',
    `${message} Retry after ${resetAt}.`,
    { limit, resetSeconds: (resetMs - nowMs) / 1000 },
    { limit, resetAt },
  );
}
