export interface Address {
  street: string;
  postalCode: string;
  city: string;
}

export type GeocodePrecision = 'street' | 'housenumber' | 'locality' | 'municipality';

export type GeocodeResult = {
  latitude: number;
  longitude: number;
  precision: GeocodePrecision;
  /** Name of the geocoder that produced the point ('embedded', 'ban', 'nominatim'). */
  provider: string;
} | null;

export interface GeocodeOptions {
  signal?: AbortSignal;
}

/**
 * A geocoder resolves an address to a point.
 *   - resolves to `null` when the address is not found (or matches below the configured threshold);
 *   - rejects with `GeocoderError` when the service itself fails (HTTP error, timeout, bad body).
 */
export interface Geocoder {
  readonly name: string;
  geocode(a: Address, opts?: GeocodeOptions): Promise<GeocodeResult>;
}

export class GeocoderError extends Error {
  readonly provider: string;
  /** HTTP status when the service answered with an error status. */
  readonly status?: number;
  /** True when the request was abandoned because of the client-side timeout. */
  readonly timedOut: boolean;

  constructor(provider: string, message: string, opts: { status?: number; timedOut?: boolean; cause?: unknown } = {}) {
    super(`${provider}: ${message}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GeocoderError';
    this.provider = provider;
    this.status = opts.status;
    this.timedOut = opts.timedOut ?? false;
  }
}
