import { normaliseAddressKey } from './normalise.js';
import type { Address, GeocodeResult, Geocoder } from './types.js';

export type GeocodedPoint = NonNullable<GeocodeResult>;

export interface GeocodeFailure {
  label: string;
  address: Address;
  /** 'not_found': every geocoder answered "not found"; 'error': a geocoder failed and none found it. */
  reason: 'not_found' | 'error';
  error?: Error;
}

/**
 * Thrown by geocodeAll when at least one address could not be geocoded; `labels` lists them in
 * input order (e.g. 'stops[3] (id "abc")', 'start', 'end'). The API maps it to 422 geocoding_failed.
 * `failures` tells not-found apart from service errors, for logging.
 */
export class GeocodingFailedError extends Error {
  readonly labels: string[];
  readonly failures: GeocodeFailure[];
  constructor(failures: GeocodeFailure[]) {
    const labels = failures.map((f) => f.label);
    super(`Could not geocode: ${labels.join(', ')}`);
    this.name = 'GeocodingFailedError';
    this.labels = labels;
    this.failures = failures;
  }
}

export interface GeocodeAllOptions {
  /** Most geocoder calls in flight at once for this call (≥ 1). */
  concurrency: number;
  signal?: AbortSignal;
}

/**
 * Geocodes every item with at most `concurrency` geocoder calls in flight, returning the points in
 * input order. Identical addresses (same normaliseAddressKey) are geocoded once. Every item is
 * attempted; if any fails, throws GeocodingFailedError listing all failed labels.
 * An abort of `signal` rejects with the abort reason.
 */
export async function geocodeAll(
  items: readonly { label: string; address: Address }[],
  geocoder: Geocoder,
  opts: GeocodeAllOptions,
): Promise<GeocodedPoint[]> {
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const keys = items.map((it) => normaliseAddressKey(it.address));
  const unique: { key: string; address: Address }[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    if (!seen.has(keys[i]!)) {
      seen.set(keys[i]!, unique.length);
      unique.push({ key: keys[i]!, address: items[i]!.address });
    }
  }
  const outcome: ({ ok: true; r: GeocodeResult } | { ok: false; error: Error })[] = new Array(unique.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < unique.length) {
      opts.signal?.throwIfAborted();
      const k = next++;
      try {
        outcome[k] = { ok: true, r: await geocoder.geocode(unique[k]!.address, { signal: opts.signal }) };
      } catch (err) {
        opts.signal?.throwIfAborted();
        outcome[k] = { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, worker));

  const points: GeocodedPoint[] = [];
  const failures: GeocodeFailure[] = [];
  items.forEach((it, i) => {
    const o = outcome[seen.get(keys[i]!)!]!;
    if (o.ok && o.r) points.push(o.r);
    else failures.push({ label: it.label, address: it.address, reason: o.ok ? 'not_found' : 'error', error: o.ok ? undefined : o.error });
  });
  if (failures.length > 0) throw new GeocodingFailedError(failures);
  return points;
}
