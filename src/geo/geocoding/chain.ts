import type { GeoLogger } from '../logger.js';
import type { Address, GeocodeOptions, GeocodeResult, Geocoder } from './types.js';
import { GeocoderError } from './types.js';

/**
 * Tries geocoders in order: not found (null) → the next; failure (GeocoderError or any error) →
 * logged at warn level, then the next. Resolves to the first non-null result (its `provider`
 * names the geocoder that found it), to null when every geocoder answered "not found", and
 * rejects with a GeocoderError('chain') only when no geocoder found the address and at least one
 * failed (so "the services are down" is not reported as "the address does not exist").
 * An abort of the caller's signal stops the chain.
 */
export class GeocoderChain implements Geocoder {
  readonly name: string;
  readonly geocoders: readonly Geocoder[];
  private readonly logger?: GeoLogger;

  constructor(geocoders: Geocoder[], opts: { logger?: GeoLogger } = {}) {
    if (geocoders.length === 0) throw new Error('GeocoderChain needs at least one geocoder');
    this.geocoders = geocoders;
    this.name = geocoders.map((g) => g.name).join(',');
    this.logger = opts.logger;
  }

  async geocode(a: Address, opts: GeocodeOptions = {}): Promise<GeocodeResult> {
    const errors: Error[] = [];
    for (let k = 0; k < this.geocoders.length; k++) {
      const g = this.geocoders[k]!;
      try {
        const r = await g.geocode(a, opts);
        if (r) return r;
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const e = err instanceof Error ? err : new Error(String(err));
        errors.push(e);
        const next = this.geocoders[k + 1]?.name ?? null;
        this.logger?.warn(
          { provider: g.name, err: { message: e.message, name: e.name }, next },
          next ? `geocoding: ${g.name} failed, falling back to ${next}` : `geocoding: ${g.name} failed, no fallback left`,
        );
      }
    }
    if (errors.length === 0) return null;
    if (this.geocoders.length === 1 && errors[0] instanceof GeocoderError) throw errors[0];
    throw new GeocoderError('chain', `no geocoder found the address and ${errors.length} failed: ${errors.map((e) => e.message).join('; ')}`, {
      cause: errors[errors.length - 1],
    });
  }
}
