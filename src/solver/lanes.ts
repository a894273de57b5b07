/**
 * Which solve gets a worker next, and when a new one could start. Two lanes: small work (a budget of at
 * most `smallMs`: optimize, small plans, every sandbox call) and big work. `smallWorkers` workers are kept
 * for small work (big work runs on the others); small work may take any free worker and goes first. In
 * each lane the key served least recently goes first (per-key round-robin), then the oldest entry.
 *
 * An entry is reserved when its call is admitted (src/calls/admission.ts), before its matrix is built,
 * so that calls arriving meanwhile count it ahead of them; it becomes ready when its solve is handed over,
 * and runs when a worker of its lane is free. Costs are the solves' budgets (an upper bound: a solve
 * may converge sooner).
 */

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
}

export class SolverLanes {
  private readonly entries = new Set<Entry>();
  /** When each key was last given a worker, per lane (a dispatch counter, not a clock). */
  private readonly served = { small: new Map<string, number>(), big: new Map<string, number>() };
  private seq = 0;
  private dispatches = 0;

  constructor(
    readonly settings: LaneSettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  isSmall(costMs: number): boolean {
    return costMs <= this.settings.smallMs;
  }

  /** Reserves a place for `key`'s solve of budget `costMs`. */
  reserve(key: string, costMs: number): LaneTicket {
    const entry: Entry = {
      seq: this.seq++,
      key,
      costMs,
      small: this.isSmall(costMs),
      state: 'reserved',
      startedAt: 0,
      start: null,
      released: false,
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
        // a running solve keeps its worker until it ends (an abort ends it); anything else leaves now
        if (entry.state === 'running') return;
        entry.state = 'finished';
        entry.start = null;
        if (this.entries.delete(entry)) this.pump();
      },
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

  /**
   * Ms from now until a new solve of `key` with budget `costMs` could start: the lane's running solves
   * and everything the round-robin would give a worker first (reserved entries counted as ready).
   */
  estimateStartMs(key: string, costMs: number): number {
    const small = this.isSmall(costMs);
    const { workers, smallWorkers } = this.settings;
    const slots = small ? workers : Math.max(1, workers - smallWorkers);
    const running = [...this.entries].filter((e) => e.state === 'running' && (small || !e.small));
    const free = running.map((e) => this.remainingMs(e)).sort((a, b) => a - b);
    // running small solves on big workers, or big ones beyond the big lane's share, cannot be shared out: keep the soonest
    while (free.length > slots) free.pop();
    while (free.length < slots) free.unshift(0);
    const newcomer: Entry = {
      seq: this.seq,
      key,
      costMs,
      small,
      state: 'ready',
      startedAt: 0,
      start: null,
      released: false,
    };
    const waiting = [...this.entries].filter(
      (e) => (e.state === 'ready' || e.state === 'reserved') && e.small === small,
    );
    waiting.push(newcomer);
    const served = new Map(this.served[small ? 'small' : 'big']);
    let tick = this.dispatches;
    for (;;) {
      free.sort((a, b) => a - b);
      const at = free[0]!;
      const next = this.pick(waiting, served);
      if (next === newcomer) return at;
      waiting.splice(waiting.indexOf(next), 1);
      served.set(next.key, tick++);
      free[0] = at + next.costMs;
    }
  }

  /** Gives free workers to ready entries: small first (any worker), then big (workers not kept for small work). */
  private pump(): void {
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
      const start = next.start!;
      next.start = null;
      start();
    }
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
