/**
 * Heavy main-thread steps in bounded turns of the event loop. The bodies of a flood of big calls end in the
 * same turn; parsed and validated as they end, all of them ran back to back (a few ms each for 1000 stops,
 * hundreds of ms for a flood of 64) before the loop could serve anything else, /healthz included. A step that
 * waits here runs in a later turn's check phase, after the I/O that arrived meanwhile; further steps join
 * that turn while it has run less than TURN_MS, the others wait for the next turn; the first waiter of a turn
 * always runs (a turn preempted past TURN_MS before its first release must not pass with nothing done). (A
 * waiter's synchronous stretch runs as the microtask its release queues; the check queued after it runs when
 * that stretch ends.)
 */
const TURN_MS = 10;
const waiting: Array<() => void> = [];
let scheduled = false;

/** Resolves in a later turn of the event loop, shared with other waiters only up to TURN_MS. */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) schedule();
  });
}

function schedule(): void {
  scheduled = true;
  setImmediate(() => {
    const turnStarted = performance.now();
    const release = (): void => {
      waiting.shift()!();
      if (waiting.length > 0) queueMicrotask(releaseNext);
      else scheduled = false;
    };
    // checked once the previous waiter's stretch has run (this microtask was queued after its release)
    const releaseNext = (): void => {
      if (performance.now() - turnStarted >= TURN_MS) return schedule();
      release();
    };
    release();
  });
}
