/**
 * Admission of a paid call, before anything is built for it (no geocoding, no matrix, no charge): the
 * one rule that refuses a call the solver cannot serve in time. In order:
 *   - the key's solver seconds in flight (reserved, waiting or running) plus this call's budget must stay
 *     within SOLVER_KEY_SECONDS_IN_FLIGHT, else 429 rate_limited;
 *   - the lanes' queue must have room (SOLVER_MAX_QUEUE), else 503 overloaded;
 *   - the call's matrices (an estimate from its number of locations) must fit in SOLVER_MEMORY_MB beside
 *     the calls admitted before it (a call alone is always let in), else 503 overloaded;
 *   - the call must be able to finish before its request deadline with at least MIN_SOLVE_SHARE of its budget:
 *     the lanes (src/solver/lanes.ts) play its lane forward, every solve ahead at its time limit cut by its
 *     own deadline (the worst case: none ends early), and its solve must start, BUILD_ALLOWANCE_MS at the
 *     earliest (the locations and the matrix), early enough for that share plus a twentieth of its budget for
 *     the answer (the budget rule, src/calls/budget.ts), else 503 overloaded, with Retry-After the seconds
 *     after which it would fit. A call that could start at once is let in (nobody gains from its refusal; the
 *     budget rule shortens its solve if it must). A call that would overtake admitted ones (the per-key
 *     round-robin) and push one of them past that point is refused the same way.
 * An admitted solve's time limit is cut, when it gets its worker, to what is left before its deadline less the
 * answer's twentieth: it never runs past the deadline however long it waited, so the later calls of a flood
 * are served with a shorter solve rather than refused while their full budget would not fit.
 * An admitted call holds a place in its lane from here to its end, so that calls arriving meanwhile count
 * it ahead of them. When the last call ends after big ones, a full collection follows once the service has
 * been idle for a moment (an idle process collects nothing on its own, and keeps their matrices resident).
 */
import { DomainError } from '../errors.js';
import { rateLimited } from '../http/limits.js';
import type { Metrics } from '../metrics.js';
import { collectGarbage } from '../solver/collect-garbage.js';
import { SOLVE_OVERRUN_SHARE, type LaneTicket, type SolverLanes } from '../solver/lanes.js';
import { answerAllowanceMs } from './budget.js';

/** Room kept before the solve for geocoding coordinates-only calls and building the matrix. */
export const BUILD_ALLOWANCE_MS = 1000;
/**
 * The least share of its budget an admitted call's solve gets before its deadline: a call that would start too
 * late for it is refused. (The solve gets its whole budget when it starts in time, else what is left.)
 */
export const MIN_SOLVE_SHARE = 0.5;
/**
 * Bytes per matrix cell a call holds while it runs: its durations and distances as JavaScript numbers
 * (8 + 8), the solver's whole-second copy (4) and the worker's and WebAssembly's copies of it (4 + 4),
 * and the optimize endpoint's per-location copy; measured peaks stay below it.
 */
export const MATRIX_BYTES_PER_CELL = 40;
/** A call whose matrices are estimated at this or more leaves a full collection behind it once the service is idle. */
const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;
/** How long the service must stay without admitted calls before that collection. */
const IDLE_BEFORE_COLLECT_MS = 2000;

export interface AdmissionSettings {
  /** Solver ms one key may have reserved, waiting or running at once (SOLVER_KEY_SECONDS_IN_FLIGHT). */
  keySolverMsInFlight: number;
  /** Bytes of matrices admitted calls may hold at once (SOLVER_MEMORY_MB). */
  memoryBytes: number;
  /** Calls admitted and not yet given a worker, at most (SOLVER_MAX_QUEUE). */
  maxQueue: number;
  /** The solver budget of a call to an endpoint with `stops` stops; an endpoint without one is not admitted here. */
  budgets: Readonly<Record<string, (stops: number) => number>>;
  /** Runs a full garbage collection (default: src/solver/collect-garbage.ts); tests count the calls. */
  collectGarbage?: () => void;
}

export interface AdmissionRequest {
  /** Who asks (the API key's id): round-robin and the per-key limit are by key. */
  key: string;
  /** The endpoint's path, which sizes its budget. */
  path: string;
  stops: number;
  /** Locations of the call (its matrix has at most this many rows). */
  locations: number;
  /** Ms until the call's request deadline. */
  msLeft: number;
}

/** An admitted call: its lane ticket, until `release`. */
export interface Admitted {
  ticket: LaneTicket;
  release(): void;
}

export class Admission {
  private memoryInUse = 0;
  private admitted = 0;
  /** A big call ended since the last collection. */
  private bigCallsEnded = false;
  private collectTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly lanes: SolverLanes,
    private readonly settings: AdmissionSettings,
    private readonly metrics?: Metrics,
  ) {
    metrics?.observeAdmission(() => this.memoryInUse);
  }

  /** The call's place, or the refusal (nothing was built or charged). Undefined for an endpoint without a budget. */
  admit(r: AdmissionRequest): Admitted | undefined {
    const budgetOf = this.settings.budgets[r.path];
    if (!budgetOf) return undefined;
    const budgetMs = budgetOf(r.stops);
    const inFlightMs = this.lanes.keyCostInFlightMs(r.key);
    const limitMs = this.settings.keySolverMsInFlight;
    if (inFlightMs + budgetMs > limitMs && inFlightMs > 0) {
      this.refused('key_seconds');
      throw rateLimited(
        `At most ${limitMs / 1000} s of solving may be queued or running at once for one key (${seconds(inFlightMs)} s are, and this call needs ${seconds(budgetMs)} s); wait for a call to finish. Nothing was charged.`,
        Math.round(limitMs / 1000),
        Math.max(1, Math.ceil((inFlightMs + budgetMs - limitMs) / 1000)),
      );
    }
    // as the pool counts its queue: what the idle workers take at once does not wait
    if (this.lanes.queued() >= this.settings.maxQueue + this.lanes.idleWorkers()) {
      this.refused('queue');
      throw overloaded(`${this.settings.maxQueue} calls are already waiting for the optimizer`, 1);
    }
    const bytes = r.locations * r.locations * MATRIX_BYTES_PER_CELL;
    if (this.admitted > 0 && this.memoryInUse + bytes > this.settings.memoryBytes) {
      this.refused('memory');
      throw overloaded(`the calls in progress hold the optimizer's memory (SOLVER_MEMORY_MB)`, 1);
    }
    const deadline = {
      msLeft: r.msLeft,
      answerMs: answerAllowanceMs(budgetMs),
      minMs: budgetMs * MIN_SOLVE_SHARE,
      buildMs: BUILD_ALLOWANCE_MS,
    };
    const place = this.lanes.schedule(r.key, budgetMs, deadline);
    const latestStartMs = r.msLeft - deadline.answerMs - deadline.minMs * (1 + SOLVE_OVERRUN_SHARE);
    // a call that can start at once is let in whatever its deadline: the budget rule then gives it what is left
    if (place.startMs > 0 && !place.fits) {
      this.refused('deadline');
      throw overloaded(
        `this call needs at least ${seconds(deadline.minMs)} s of solving and could start in about ${seconds(place.startMs)} s, too late for its ${seconds(r.msLeft)} s deadline`,
        Math.max(1, Math.ceil((place.startMs - Math.max(0, latestStartMs)) / 1000)),
      );
    }
    if (place.pushedOut > 0) {
      this.refused('deadline');
      throw overloaded(
        `letting this call in ahead of ${place.pushedOut} admitted call(s) would make them miss their deadline`,
        Math.max(1, Math.ceil(place.nextFreeMs / 1000)),
      );
    }
    const ticket = this.lanes.reserve(r.key, budgetMs, deadline);
    this.memoryInUse += bytes;
    this.admitted++;
    let released = false;
    return {
      ticket,
      release: () => {
        if (released) return;
        released = true;
        this.memoryInUse -= bytes;
        this.admitted--;
        ticket.release();
        if (bytes >= COLLECT_AFTER_BYTES) this.bigCallsEnded = true;
        if (this.admitted === 0 && this.bigCallsEnded) this.collectWhenIdle();
      },
    };
  }

  /**
   * The dead matrices of big calls sit in the old generation, and an idle process runs no GC: once no call has
   * been admitted for IDLE_BEFORE_COLLECT_MS, one full collection gives their memory back.
   */
  private collectWhenIdle(): void {
    if (this.collectTimer) clearTimeout(this.collectTimer);
    this.collectTimer = setTimeout(() => {
      this.collectTimer = null;
      if (this.admitted > 0) return; // the next call's end schedules it again
      this.bigCallsEnded = false;
      (this.settings.collectGarbage ?? collectGarbage)();
    }, IDLE_BEFORE_COLLECT_MS);
    this.collectTimer.unref();
  }

  private refused(reason: 'key_seconds' | 'queue' | 'memory' | 'deadline'): void {
    this.metrics?.admissionRefusals.inc({ reason });
  }
}

const seconds = (ms: number): string => (Math.round(ms / 100) / 10).toString();

function overloaded(why: string, retryAfterSeconds: number): DomainError {
  return new DomainError(
    'overloaded',
    `The optimizer is busy: ${why}. Retry after ${retryAfterSeconds} s. Nothing was charged.`,
    { retryAfterSeconds },
  );
}
