/**
 * What GET /readyz answers: whether this instance can take a paid call now.
 * The store must take a write (a probe as large as a call's writes, so a full
 * disk, a read-only database or a lock held past a short wait all show), and
 * the solver pool must be up with room in its queue. Probes are shared: at most
 * one in flight, its outcome reused for a second unless a call's write failed
 * for want of storage meanwhile (the last write's outcome counts too).
 */
import { isStorageUnavailable, type Store } from './store/types.js';

export interface Readiness {
  store: boolean;
  solver: boolean;
  /** What is wrong, in words, when not ready. */
  problems: string[];
}

export interface WritabilityOptions {
  /** How long a probe's outcome is reused. Default 1 s. */
  cacheMs?: number;
  /** A probe not answered within this is a failure. Default 2 s. */
  timeoutMs?: number;
  clock?: () => Date;
}

export class StoreWritability {
  private readonly cacheMs: number;
  private readonly timeoutMs: number;
  private readonly clock: () => Date;
  private last: { at: number; problem: string | null } | null = null;
  private running: Promise<string | null> | null = null;

  constructor(
    private readonly store: Store,
    options: WritabilityOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 1_000;
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.clock = options.clock ?? (() => new Date());
  }

  /** A real write just failed for want of storage: the next check probes again instead of reusing a success. */
  invalidate(): void {
    this.last = null;
  }

  /** Null when the store took a write, else what went wrong. */
  async check(): Promise<string | null> {
    const now = Date.now();
    if (this.last && now - this.last.at < this.cacheMs) return this.last.problem;
    this.running ??= this.probe().then((problem) => {
      this.last = { at: Date.now(), problem };
      this.running = null;
      return problem;
    });
    return this.running;
  }

  private async probe(): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`The database did not take a write within ${this.timeoutMs} ms.`),
        this.timeoutMs,
      );
    });
    const write = this.store.probeWrite(this.clock()).then(
      () => null,
      (err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        return isStorageUnavailable(err)
          ? `The database cannot take a write right now (${String(code)}: disk full, read-only or locked).`
          : 'The database failed a write probe.';
      },
    );
    try {
      return await Promise.race([write, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
