import { normaliseAddressKey } from './normalise.js';
import {
  geocodeEach,
  type Address,
  type GeocodeManyOptions,
  type GeocodeOptions,
  type GeocodeOutcome,
  type GeocodeResult,
  type Geocoder,
} from './types.js';

/**
 * Geocode cache. `get` returns undefined on a miss; a stored `null` means "known not found"
 * (only stored when CachedGeocoder's cacheNotFound is on). Keys are opaque strings.
 */
export interface GeocodeCache {
  get(key: string): GeocodeResult | undefined | Promise<GeocodeResult | undefined>;
  set(key: string, r: GeocodeResult): void | Promise<void>;
}

/** In-memory cache (tests, or a process without SQLite); optional size bound with FIFO eviction. */
export class MemoryGeocodeCache implements GeocodeCache {
  private readonly map = new Map<string, GeocodeResult>();
  constructor(private readonly maxEntries = Infinity) {}
  get(key: string): GeocodeResult | undefined {
    return this.map.get(key);
  }
  set(key: string, r: GeocodeResult): void {
    this.map.delete(key);
    this.map.set(key, r);
    while (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value as string);
  }
  get size(): number {
    return this.map.size;
  }
}

export interface CachedGeocoderOptions {
  /**
   * Prefix of every key, default `${geocoder.name}:` (e.g. "geoplateforme:"), so that entries of one
   * engine are never served for another (e.g. commune-level points after switching to a street-level
   * engine). Pass '' to share entries across engines.
   */
  keyPrefix?: string;
  /** Also cache "not found" (null); default false, so a not-found address is asked again next time. */
  cacheNotFound?: boolean;
}

/** Wraps a geocoder with a cache; key = keyPrefix + normaliseAddressKey(address). Errors are never cached. */
export class CachedGeocoder implements Geocoder {
  readonly name: string;
  private readonly keyPrefix: string;
  private readonly cacheNotFound: boolean;

  constructor(
    private readonly inner: Geocoder,
    private readonly cache: GeocodeCache,
    opts: CachedGeocoderOptions = {},
  ) {
    this.name = inner.name;
    this.keyPrefix = opts.keyPrefix ?? `${inner.name}:`;
    this.cacheNotFound = opts.cacheNotFound ?? false;
  }

  keyOf(a: Address): string {
    return this.keyPrefix + normaliseAddressKey(a);
  }

  async geocode(a: Address, opts?: GeocodeOptions): Promise<GeocodeResult> {
    const key = this.keyOf(a);
    const hit = await this.cache.get(key);
    if (hit !== undefined && (hit !== null || this.cacheNotFound)) return hit;
    const r = await this.inner.geocode(a, opts);
    if (r !== null || this.cacheNotFound) await this.cache.set(key, r);
    return r;
  }

  /** Cache hits are answered at once; the misses go to the inner geocoder together (one batch when it has one). */
  async geocodeMany(addresses: readonly Address[], opts: GeocodeManyOptions): Promise<GeocodeOutcome[]> {
    const keys = addresses.map((a) => this.keyOf(a));
    const hits = await Promise.all(keys.map((k) => this.cache.get(k)));
    const outcomes: GeocodeOutcome[] = new Array(addresses.length);
    const misses: number[] = [];
    hits.forEach((hit, i) => {
      if (hit !== undefined && (hit !== null || this.cacheNotFound)) outcomes[i] = { ok: true, result: hit };
      else misses.push(i);
    });
    const answers = await geocodeEach(
      this.inner,
      misses.map((i) => addresses[i]!),
      opts,
    );
    await Promise.all(
      answers.map(async (o, j) => {
        const i = misses[j]!;
        outcomes[i] = o;
        if (o.ok && (o.result !== null || this.cacheNotFound)) await this.cache.set(keys[i]!, o.result);
      }),
    );
    return outcomes;
  }
}
