/**
 * A full garbage collection on demand, for the moments after big work when the heap holds tens of MB of
 * dead matrices and nothing would collect them soon: an idle isolate (a solver worker, the main thread
 * after a flood) runs no GC at all, so its memory (WebAssembly instances dropped by the workers, travel
 * matrices promoted to the old generation) stays resident. The same way as Jest's leak detector: the
 * `gc` function is exposed at run time and taken from a fresh context.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/** Runs a full collection; false when this runtime does not allow it (nothing happens then). */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const exposed: unknown = runInNewContext('gc');
      gc = typeof exposed === 'function' ? (exposed as () => void) : null;
    } catch {
      gc = null;
    }
  }
  if (gc === null) return false;
  gc();
  return true;
}
