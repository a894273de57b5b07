/**
 * Heavy main-thread steps one per turn of the event loop. The bodies of a flood of big calls end in the same
 * turn; parsed and validated as they end, all of them ran back to back (a few ms each for 1000 stops, hundreds
 * for a flood of 64) before the loop could serve anything else, /healthz included. A step that takes a turn
 * here runs alone in a later turn's check phase, after the I/O that arrived meanwhile; the next waits for
 * the turn after (an immediate queued during the check phase runs in the next one).
 */
const waiting: Array<() => void> = [];
let scheduled = false;

/** Resolves in a turn of its own: the caller's next synchronous stretch runs alone in that turn. */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) schedule();
  });
}

function schedule(): void {
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    waiting.shift()?.();
    if (waiting.length > 0) schedule();
  });
}
