import { getMaxListeners, setMaxListeners } from 'node:events';
import { ImpreciseMatchError } from './chain.js';
import { normaliseAddressKey } from './normalise.js';
import { geocodeEach, type Address, type GeocodedPoint, type GeocodePrecision, type Geocoder } from './types.js';

export type { GeocodedPoint } from './types.js';

export interface GeocodeFailure {
  label: string;
  address: Address;
  /**
   * 'not_found': every geocoder answered "not found"; 'error': a geocoder failed and none found it;
   * 'imprecise': found, but only more coarsely than the configured minimum precision.
   */
  reason: 'not_found' | 'error' | 'imprecise';
  error?: Error;
  /** 'imprecise' only: the best match and the precision required. */
  best?: GeocodedPoint;
  required?: GeocodePrecision;
}

/**
 * Thrown by geocodeAll when at least one address could not be geocoded; `labels` lists them in
 * input order (e.g. 'stops[3] (id "abc")', 'start', 'end'). The API maps it to 422 geocoding_failed.
 * `failures` tells not-found, service errors and too coarse matches apart.
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
 * Geocodes every item with at most `concurrency` geocoder calls in flight (or one batch request
 * where an engine has a batch endpoint), returning the points in input order. Identical addresses
 * (same normaliseAddressKey) are geocoded once. Every item is attempted; if any fails, throws
 * GeocodingFailedError listing all failed labels. An abort of `signal` rejects with the abort reason.
 */
export async function geocodeAll(
  items: readonly { label: string; address: Address }[],
  geocoder: Geocoder,
  opts: GeocodeAllOptions,
): Promise<GeocodedPoint[]> {
  const keys = items.map((it) => normaliseAddressKey(it.address));
  const unique: Address[] = [];
  const seen = new Map<string, number>();
  items.forEach((it, i) => {
    if (!seen.has(keys[i]!)) {
      seen.set(keys[i]!, unique.length);
      unique.push(it.address);
    }
  });
  // every lookup waiting for a request slot listens to the call's signal
  if (opts.signal) setMaxListeners(Math.max(getMaxListeners(opts.signal), 2 * unique.length + 10), opts.signal);
  const outcomes = await geocodeEach(geocoder, unique, {
    concurrency: Math.max(1, Math.floor(opts.concurrency)),
    signal: opts.signal,
  });
  opts.signal?.throwIfAborted();

  const points: GeocodedPoint[] = [];
  const failures: GeocodeFailure[] = [];
  items.forEach((it, i) => {
    const o = outcomes[seen.get(keys[i]!)!]!;
    if (o.ok && o.result) points.push(o.result);
    else if (o.ok) failures.push({ label: it.label, address: it.address, reason: 'not_found' });
    else if (o.error instanceof ImpreciseMatchError) {
      failures.push({
        label: it.label,
        address: it.address,
        reason: 'imprecise',
        error: o.error,
        best: o.error.best,
        required: o.error.required,
      });
    } else failures.push({ label: it.label, address: it.address, reason: 'error', error: o.error });
  });
  if (failures.length > 0) throw new GeocodingFailedError(failures);
  return points;
}
