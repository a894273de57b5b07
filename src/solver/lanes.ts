/**
 * Which solve gets a worker next, and when a new one could start. Two lanes: small work (a budget of at
 * most `smallMs`: optimize, small plans, every sandbox call) and big work. `smallWorkers` workers are kept
 * for small work (big work runs on the others); small work may take any free worker and goes first. In
 * each lane the key served least recently goes first (per-key round-robin), then the oldest entry.
 *
 * An entry is reserved when its call is admitted (src/calls/admission.ts), before its matrix is built,
 * so that calls arriving meanwhile count it ahead of them; it becomes ready when its solve is handed over,
 * and runs when a worker of its lane is free. An entry may carry its call's deadline: its solve's time
 * limit is then cut, when it gets its worker, to what is left before that deadline less its answer's
 * allowance and the solver's overrun (so that no solve runs past its call's deadline, however long it
 * waited), and `schedule` checks that it would still get at least its minimum. Costs are the solves' time
 * limits, an upper bound: a solve that converges sooner frees its worker sooner, and the next estimate
 * starts from there.
 */

/**
 * How far past its time limit a solve may run: the search checks its clock between moves, and the answer is
 * copied back after it (measured: 1000 stops overran a 2–5 s limit by 7 %, on a loaded machine). A time limit
 * cut by a deadline leaves this share on top of it.
 */
export const SOLVE_OVERRUN_SHARE = 0.1;

/** A call's deadline as the lanes count it: ms from the reservation. */
export interface EntryDeadline {
  /** Ms from now until the call's request deadline. */
  msLeft: number;
  /** Kept after the solve for the answer (the budget rule's twentieth). */
  answerMs: number;
  /** The least solve the call is admitted with. */
  minMs: number;
  /** Ms before the solve can be handed over at all (the call's locations and matrix). */
  buildMs?: number;
}

/** A new solve's place in its lane, as `schedule` sees it. */
export interface ScheduleEstimate {
  /** Ms from now until it could start. */
  startMs: number;
  /** It would get at least its minimum before its deadline. */
  fits: boolean;
  /** Solves admitted before it that would no longer get their minimum if it were let in ahead of them. */
  pushedOut: number;
  /** Ms from now until the lane's first worker frees (when the estimate next changes). */
  nextFreeMs: number;
}

export interface LaneSettings {
  /** Worker threads of the pool. */
  workers: number;
  /** Workers only small work may use (0 with a single worker). */
  smallWorkers: number;
  /** A solve with a budget of at most this many ms is small. */
  smallMs: number;
}

type EntryState = 'reserved' | 'ready' | 'running' | 'finished';

interface Entry {
  seq: number;
  key: string;
  costMs: number;
  small: boolean;
  state: EntryState;
  startedAt: number;
  start: (() => void) | null;
  /** The call ended: the entry leaves the lanes once its solve, if any, has finished. */
  released: boolean;
  /** The call's deadline (this clock) with its allowances; none: the solve keeps its time limit. */
  deadline?: { at: number; answerMs: number; minMs: number };
}

/** A call's place in the lanes, from admission to its end. */
export interface LaneTicket {
  readonly key: string;
  /** The solve is handed over with its budget: `start` is called when it gets a worker. */
  ready(costMs: number, start: () => void): void;
  /** The solve ended (or was dropped while waiting): its worker, if any, goes to the next. */
  finished(): void;
  /** The call ended: the entry leaves the lanes (idempotent). */
  release(): void;
  /** Once started: `timeLimitMs` cut to what is left before the call's deadline (at least 1 ms). */
  timeLimitAtStart(timeLimitMs: number): number;
  /**
   * Resolves once this reserved entry's solve could start within `leadMs` (the lane played forward as for
   * `schedule`), or when the entry leaves; at once for an entry already handed over.
   */
  untilNear(leadMs: number): Promise<void>;
}

export class SolverLanes {
  private readonly entries = new Set<Entry>();
  /** When each key was last given a worker, per lane (a dispatch counter, not a clock). */
  private readonly served = { small: new Map<string, number>(), big: new Map<string, number>() };
  private seq = 0;
  private dispatches = 0;
  /** Reserved entries waiting in `untilNear`, with their lead. */
  private readonly nearWaiters = new Map<Entry, { leadMs: number; resolve: () => void }>();
  private nearTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly settings: LaneSettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  isSmall(costMs: number): boolean {
    return costMs <= this.settings.smallMs;
  }

  /** Reserves a place for `key`'s solve of budget `costMs`, within its call's `deadline` when given. */
  reserve(key: string, costMs: number, deadline?: EntryDeadline): LaneTicket {
    const entry: Entry = {
      seq: this.seq++,
      key,
      costMs,
      small: this.isSmall(costMs),
      state: 'reserved',
      startedAt: 0,
      start: null,
      released: false,
      ...(deadline ? { deadline: this.absolute(deadline) } : {}),
    };
    this.entries.add(entry);
    return {
      key,
      ready: (cost, start) => {
        if (!this.entries.has(entry)) this.entries.add(entry); // a second solve of one call
        entry.costMs = cost;
        entry.small = this.isSmall(cost);
        entry.state = 'ready';
        entry.start = start;
        this.pump();
      },
      finished: () => {
        entry.state = 'finished';
        entry.start = null;
        if (entry.released) this.entries.delete(entry);
        this.pump();
      },
      release: () => {
        entry.released = true;
        this.nearWaiters.get(entry)?.resolve();
        this.nearWaiters.delete(entry);
        // a running solve keeps its worker until it ends (an abort ends it); anything else leaves now
        if (entry.state === 'running') return;
        entry.state = 'finished';
        entry.start = null;
        if (this.entries.delete(entry)) this.pump();
      },
      timeLimitAtStart: (timeLimitMs) => Math.min(timeLimitMs, entry.costMs),
      untilNear: (leadMs) =>
        new Promise<void>((resolve) => {
          if (entry.state !== 'reserved' || !this.entries.has(entry)) return resolve();
          this.nearWaiters.set(entry, { leadMs, resolve });
          this.wakeNear();
        }),
    };
  }

  /** Solves waiting for a worker (reserved ones not counted). */
  waiting(): number {
    return this.count((e) => e.state === 'ready');
  }

  /** Solves handed over and not finished (waiting or running). */
  active(): number {
    return this.count((e) => e.state === 'ready' || e.state === 'running');
  }

  /** Workers running nothing now. */
  idleWorkers(): number {
    return Math.max(0, this.settings.workers - this.count((e) => e.state === 'running'));
  }

  /** Entries admitted and not yet running (reserved or ready). */
  queued(): number {
    return this.count((e) => e.state === 'reserved' || e.state === 'ready');
  }

  /** Budget ms `key` has reserved, waiting or running (running ones: what is left of them). */
  keyCostInFlightMs(key: string): number {
    let ms = 0;
    for (const e of this.entries) if (e.key === key) ms += this.remainingMs(e);
    return ms;
  }

  /** The entry a solve not yet reserved would be, for the estimates. */
  private newcomer(key: string, costMs: number): Entry {
    const small = this.isSmall(costMs);
    return { seq: this.seq, key, costMs, small, state: 'ready', startedAt: 0, start: null, released: false };
  }

  /**
   * Ms from now until a new solve of `key` with budget `costMs` could start: the lane's running solves
   * and everything the round-robin would give a worker first (reserved entries counted as ready).
   */
  estimateStartMs(key: string, costMs: number): number {
    const newcomer = this.newcomer(key, costMs);
    return this.simulate(newcomer.small, { entry: newcomer, readyInMs: 0 }).newcomerStartMs;
  }

  private pump(): void {
    this.dispatch();
    this.wakeNear();
  }

  /** Gives free workers to ready entries: small first (any worker), then big (workers not kept for small work). */
  private dispatch(): void {
    for (;;) {
      const running = [...this.entries].filter((e) => e.state === 'running');
      if (running.length >= this.settings.workers) return;
      const ready = [...this.entries].filter((e) => e.state === 'ready');
      const smallReady = ready.filter((e) => e.small);
      const bigRunning = running.filter((e) => !e.small).length;
      const bigAllowed = Math.max(1, this.settings.workers - this.settings.smallWorkers);
      const candidates =
        smallReady.length > 0 ? smallReady : bigRunning < bigAllowed ? ready.filter((e) => !e.small) : [];
      if (candidates.length === 0) return;
      const lane = candidates[0]!.small ? 'small' : 'big';
      const next = this.pick(candidates, this.served[lane]);
      this.served[lane].set(next.key, this.dispatches++);
      next.state = 'running';
      next.startedAt = this.now();
      next.costMs = Math.max(1, Math.floor(this.limitAt(next, next.startedAt)));
      const start = next.start!;
      next.start = null;
      start();
    }
  }

  /** Lets go the entries of `untilNear` whose solve could now start within their lead; looks again when the next could. */
  private wakeNear(): void {
    if (this.nearTimer) clearTimeout(this.nearTimer);
    this.nearTimer = null;
    if (this.nearWaiters.size === 0) return;
    const starts = new Map([...this.simulate(true, null).starts, ...this.simulate(false, null).starts]);
    let soonestMs = Infinity;
    for (const [entry, waiter] of this.nearWaiters) {
      const inMs = (starts.get(entry) ?? 0) - waiter.leadMs;
      if (inMs > 0) soonestMs = Math.min(soonestMs, inMs);
      else {
        this.nearWaiters.delete(entry);
        waiter.resolve();
      }
    }
    if (soonestMs < Infinity) {
      this.nearTimer = setTimeout(() => this.wakeNear(), Math.ceil(soonestMs));
      this.nearTimer.unref();
    }
  }

  /**
   * Where a new solve of `key` (time limit `costMs`, its call's `deadline`) would fall in its lane: when it
   * could start, whether it would still get its minimum, and how many solves admitted before it would not,
   * counting every solve ahead at its time limit cut by its own deadline (the worst case: none ends early).
   */
  schedule(key: string, costMs: number, deadline: EntryDeadline): ScheduleEstimate {
    const newcomer: Entry = { ...this.newcomer(key, costMs), deadline: this.absolute(deadline) };
    const before = this.simulate(newcomer.small, null);
    const after = this.simulate(newcomer.small, { entry: newcomer, readyInMs: deadline.buildMs ?? 0 });
    return {
      startMs: after.newcomerStartMs,
      fits: !after.late.has(newcomer),
      pushedOut: [...after.late].filter((e) => e !== newcomer && !before.late.has(e)).length,
      nextFreeMs: Math.min(...this.freeAtMs(newcomer.small)),
    };
  }

  /**
   * The lane's solves, in the order the round-robin would start them, on its workers: when the newcomer (if
   * any) would start, and which solves would start too late to get their minimum before their deadline.
   */
  private simulate(
    small: boolean,
    newcomer: { entry: Entry; readyInMs: number } | null,
  ): { newcomerStartMs: number; late: Set<Entry>; starts: Map<Entry, number> } {
    const now = this.now();
    const free = this.freeAtMs(small);
    const waiting = [...this.entries].filter(
      (e) => (e.state === 'ready' || e.state === 'reserved') && e.small === small,
    );
    if (newcomer) waiting.push(newcomer.entry);
    const served = new Map(this.served[small ? 'small' : 'big']);
    let tick = this.dispatches;
    let newcomerStartMs = 0;
    const late = new Set<Entry>();
    const starts = new Map<Entry, number>();
    while (waiting.length > 0) {
      free.sort((a, b) => a - b);
      const next = this.pick(waiting, served);
      waiting.splice(waiting.indexOf(next), 1);
      served.set(next.key, tick++);
      const at = next === newcomer?.entry ? Math.max(free[0]!, newcomer.readyInMs) : free[0]!;
      if (next === newcomer?.entry) newcomerStartMs = free[0]!;
      starts.set(next, at);
      const limitMs = this.limitAt(next, now + at);
      if (next.deadline && limitMs < next.deadline.minMs) late.add(next);
      free[0] = at + Math.max(0, limitMs);
    }
    return { newcomerStartMs, late, starts };
  }

  /** Ms from now until each worker a solve of this lane may use is free (running solves at what is left). */
  private freeAtMs(small: boolean): number[] {
    const { workers, smallWorkers } = this.settings;
    const slots = small ? workers : Math.max(1, workers - smallWorkers);
    const running = [...this.entries].filter((e) => e.state === 'running' && (small || !e.small));
    const free = running.map((e) => this.remainingMs(e)).sort((a, b) => a - b);
    // running small solves on big workers, or big ones beyond the big lane's share, cannot be shared out: keep the soonest
    while (free.length > slots) free.pop();
    while (free.length < slots) free.unshift(0);
    return free;
  }

  /**
   * The time limit `e` would get if it started at `at` (this clock): its cost, cut so that it ends, overrun
   * included, before its deadline less its answer's allowance.
   */
  private limitAt(e: Entry, at: number): number {
    if (!e.deadline) return e.costMs;
    return Math.min(e.costMs, (e.deadline.at - e.deadline.answerMs - at) / (1 + SOLVE_OVERRUN_SHARE));
  }

  private absolute(d: EntryDeadline): NonNullable<Entry['deadline']> {
    return { at: this.now() + d.msLeft, answerMs: d.answerMs, minMs: d.minMs };
  }

  /** Least recently served key first, then the oldest entry. */
  private pick(entries: readonly Entry[], served: ReadonlyMap<string, number>): Entry {
    let best = entries[0]!;
    for (const e of entries) {
      const a = served.get(e.key) ?? -1;
      const b = served.get(best.key) ?? -1;
      if (a < b || (a === b && e.seq < best.seq)) best = e;
    }
    return best;
  }

  private remainingMs(e: Entry): number {
    if (e.state === 'finished') return 0;
    if (e.state !== 'running') return e.costMs;
    return Math.max(0, e.startedAt + e.costMs - this.now());
  }

  private count(test: (e: Entry) => boolean): number {
    let n = 0;
    for (const e of this.entries) if (test(e)) n++;
    return n;
  }
}
