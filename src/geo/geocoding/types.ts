export interface Address {
  street: string;
  postalCode: string;
  city: string;
}

/** How exactly a point places an address, finest first (the addok/BAN `type` values). */
export type GeocodePrecision = 'housenumber' | 'street' | 'locality' | 'municipality';

export const GEOCODE_PRECISIONS: readonly GeocodePrecision[] = ['housenumber', 'street', 'locality', 'municipality'];

const RANK: Record<GeocodePrecision, number> = { municipality: 0, locality: 1, street: 2, housenumber: 3 };

/** True when `p` places the address at least as exactly as `min` (housenumber ≥ street ≥ locality ≥ municipality). */
export function meetsPrecision(p: GeocodePrecision, min: GeocodePrecision): boolean {
  return RANK[p] >= RANK[min];
}

/** True for precisions coarser than the street (locality, municipality): the point may be hundreds of metres off. */
export function isCoarserThanStreet(p: GeocodePrecision): boolean {
  return RANK[p] < RANK.street;
}

export type GeocodeResult = {
  latitude: number;
  longitude: number;
  precision: GeocodePrecision;
  /** Name of the geocoder that produced the point ('geoplateforme', 'ban', 'nominatim', 'embedded'). */
  provider: string;
  /** What the geocoder matched, in its own words, e.g. "8 Boulevard du Port 80000 Amiens". */
  label: string;
} | null;

export type GeocodedPoint = NonNullable<GeocodeResult>;

export interface GeocodeOptions {
  signal?: AbortSignal;
}

export interface GeocodeManyOptions extends GeocodeOptions {
  /** Most requests in flight at once for this batch of lookups (≥ 1). */
  concurrency: number;
}

/** One lookup of a batch: a result (null = not found) or the failure of the service. */
export type GeocodeOutcome = { ok: true; result: GeocodeResult } | { ok: false; error: Error };

/**
 * A geocoder resolves an address to a point.
 *   - resolves to `null` when the address is not found (or matches below the configured threshold);
 *   - rejects with `GeocoderError` when the service itself fails (HTTP error, timeout, bad body).
 * `geocodeMany`, when present, looks up many addresses at once (e.g. one CSV batch request) and
 * resolves to one outcome per address, in order; it rejects only when the caller's signal aborts.
 */
export interface Geocoder {
  readonly name: string;
  geocode(a: Address, opts?: GeocodeOptions): Promise<GeocodeResult>;
  geocodeMany?(addresses: readonly Address[], opts: GeocodeManyOptions): Promise<GeocodeOutcome[]>;
}

export class GeocoderError extends Error {
  readonly provider: string;
  /** HTTP status when the service answered with an error status. */
  readonly status?: number;
  /** True when the request was abandoned because of the client-side timeout. */
  readonly timedOut: boolean;
  /** True when the service did not answer at all (timeout, refused or reset connection, DNS). */
  readonly unreachable: boolean;
  /** The service asked us to wait this long (HTTP 429/503 Retry-After), in ms. */
  readonly retryAfterMs?: number;
  /**
   * A batch answer we could not use although the service answered: the addresses are then looked
   * up one by one, and those requests, not this one, tell whether the service works.
   */
  readonly unusableBatch: boolean;

  constructor(
    provider: string,
    message: string,
    opts: {
      status?: number;
      timedOut?: boolean;
      unreachable?: boolean;
      retryAfterMs?: number;
      unusableBatch?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(`${provider}: ${message}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GeocoderError';
    this.provider = provider;
    this.status = opts.status;
    this.timedOut = opts.timedOut ?? false;
    this.unreachable = opts.unreachable ?? this.timedOut;
    this.retryAfterMs = opts.retryAfterMs;
    this.unusableBatch = opts.unusableBatch ?? false;
  }
}

/** The service did not answer at all (timeout, refused connection, or its circuit breaker is open). */
export const isUnreachable = (err: Error): boolean => err instanceof GeocoderError && err.unreachable;

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; outcomes in input order.
 * Once one lookup finds the service unreachable, the items not started yet fail with that same
 * error at once: a service that does not answer costs one call one timeout, not one per address.
 * Rejects only on abort.
 */
export async function settleEach<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<GeocodeResult>,
  signal?: AbortSignal,
): Promise<GeocodeOutcome[]> {
  const outcomes: GeocodeOutcome[] = new Array(items.length);
  let next = 0;
  let unreachable: Error | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const k = next++;
      if (unreachable) {
        outcomes[k] = { ok: false, error: unreachable };
        continue;
      }
      try {
        outcomes[k] = { ok: true, result: await fn(items[k]!) };
      } catch (err) {
        signal?.throwIfAborted();
        const error = err instanceof Error ? err : new Error(String(err));
        if (isUnreachable(error)) unreachable ??= error;
        outcomes[k] = { ok: false, error };
      }
    }
  };
  const workers = Math.min(Math.max(1, Math.floor(concurrency)), items.length);
  await Promise.all(Array.from({ length: workers }, worker));
  return outcomes;
}

/** `geocoder.geocodeMany` when it has one, else one `geocode` per address with the concurrency cap. */
export function geocodeEach(
  geocoder: Geocoder,
  addresses: readonly Address[],
  opts: GeocodeManyOptions,
): Promise<GeocodeOutcome[]> {
  if (addresses.length === 0) return Promise.resolve([]);
  if (geocoder.geocodeMany) return geocoder.geocodeMany(addresses, opts);
  return settleEach(addresses, opts.concurrency, (a) => geocoder.geocode(a, { signal: opts.signal }), opts.signal);
}
