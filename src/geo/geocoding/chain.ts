import type { GeoLogger } from '../logger.js';
import {
  GeocoderError,
  geocodeEach,
  meetsPrecision,
  type Address,
  type GeocodeManyOptions,
  type GeocodeOptions,
  type GeocodeOutcome,
  type GeocodePrecision,
  type GeocodeResult,
  type GeocodedPoint,
  type Geocoder,
} from './types.js';

/** Every engine that found the address placed it more coarsely than the operator accepts (GEOCODER_MIN_PRECISION). */
export class ImpreciseMatchError extends Error {
  constructor(
    readonly best: GeocodedPoint,
    readonly required: GeocodePrecision,
  ) {
    super(
      `best match "${best.label}" (${best.provider}) is at ${best.precision} level; ${required} level or finer is required`,
    );
    this.name = 'ImpreciseMatchError';
  }
}

export interface GeocoderChainOptions {
  logger?: GeoLogger;
  /** Coarser matches do not count as found: the next engine is asked; default 'municipality' (accept all). */
  minPrecision?: GeocodePrecision;
}

const finer = (a: GeocodedPoint | undefined, b: GeocodedPoint): GeocodedPoint =>
  a && meetsPrecision(a.precision, b.precision) ? a : b;

/**
 * Tries geocoders in order, address by address: not found (null), or found more coarsely than
 * `minPrecision` → the next one; failure (GeocoderError or any error) → the next one, logged at warn
 * level once per engine and batch. An address resolves to the first good enough result (its
 * `provider` names the geocoder that found it); to null when every geocoder answered "not found";
 * fails with ImpreciseMatchError when some found it, but none precisely enough; and fails with a
 * GeocoderError('chain') only when no geocoder found it and at least one failed (so "the services
 * are down" is not reported as "the address does not exist"). A chain of one geocoder passes that
 * geocoder's error on unchanged. An abort of the caller's signal stops the chain.
 */
export class GeocoderChain implements Geocoder {
  readonly name: string;
  readonly geocoders: readonly Geocoder[];
  readonly minPrecision: GeocodePrecision;
  private readonly logger?: GeoLogger;

  constructor(geocoders: Geocoder[], opts: GeocoderChainOptions = {}) {
    if (geocoders.length === 0) throw new Error('GeocoderChain needs at least one geocoder');
    this.geocoders = geocoders;
    this.name = geocoders.map((g) => g.name).join(',');
    this.logger = opts.logger;
    this.minPrecision = opts.minPrecision ?? 'municipality';
  }

  async geocode(a: Address, opts: GeocodeOptions = {}): Promise<GeocodeResult> {
    const [outcome] = await this.geocodeMany([a], { concurrency: 1, signal: opts.signal });
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.result;
  }

  async geocodeMany(addresses: readonly Address[], opts: GeocodeManyOptions): Promise<GeocodeOutcome[]> {
    const found: Array<GeocodedPoint | undefined> = new Array(addresses.length);
    const coarse: Array<GeocodedPoint | undefined> = new Array(addresses.length);
    const errors: Error[][] = addresses.map(() => []);
    let pending = addresses.map((_, i) => i);
    for (let k = 0; k < this.geocoders.length && pending.length > 0; k++) {
      const g = this.geocoders[k]!;
      const outcomes = await geocodeEach(
        g,
        pending.map((i) => addresses[i]!),
        opts,
      );
      opts.signal?.throwIfAborted();
      const failed: Error[] = [];
      const still: number[] = [];
      outcomes.forEach((o, j) => {
        const i = pending[j]!;
        if (!o.ok) {
          errors[i]!.push(o.error);
          failed.push(o.error);
          still.push(i);
        } else if (o.result && meetsPrecision(o.result.precision, this.minPrecision)) {
          found[i] = o.result;
        } else {
          if (o.result) coarse[i] = finer(coarse[i], o.result);
          still.push(i);
        }
      });
      if (failed.length > 0) this.logFailures(g.name, failed, outcomes.length, this.geocoders[k + 1]?.name ?? null);
      pending = still;
    }
    return addresses.map((_, i): GeocodeOutcome => {
      if (found[i]) return { ok: true, result: found[i]! };
      if (coarse[i]) return { ok: false, error: new ImpreciseMatchError(coarse[i]!, this.minPrecision) };
      const errs = errors[i]!;
      if (errs.length === 0) return { ok: true, result: null };
      if (this.geocoders.length === 1 && errs[0] instanceof GeocoderError) return { ok: false, error: errs[0] };
      return {
        ok: false,
        error: new GeocoderError(
          'chain',
          `no geocoder found the address and ${errs.length} failed: ${errs.map((e) => e.message).join('; ')}`,
          {
            cause: errs[errs.length - 1],
          },
        ),
      };
    });
  }

  private logFailures(provider: string, failed: Error[], of: number, next: string | null): void {
    const first = failed[0]!;
    this.logger?.warn(
      { provider, failed: failed.length, of, err: { message: first.message, name: first.name }, next },
      next
        ? `geocoding: ${provider} failed for ${failed.length} of ${of} addresses, falling back to ${next}`
        : `geocoding: ${provider} failed for ${failed.length} of ${of} addresses, no fallback left`,
    );
  }
}
