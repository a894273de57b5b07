/**
 * BAN geocoder: the French national address API (Base Adresse Nationale, addok), public at
 * https://api-adresse.data.gouv.fr or self-hosted (addok-docker).
 *
 *   GET {baseUrl}/search/?q=<street> <city>&postcode=<postal code>&limit=1
 *   → GeoJSON FeatureCollection; features[0].geometry.coordinates = [lon, lat],
 *     properties.score (0..1), properties.type ∈ housenumber | street | locality | municipality.
 *
 * The city goes into `q` (BAN has no `city` filter; its filters are postcode, citycode, type) and
 * the postal code into the `postcode` filter. No feature, or a score below `minScore` → null.
 */
import { getJson, isFiniteNumber } from './http.js';
import { normalisePostalCode } from './normalise.js';
import type { Address, GeocodeOptions, GeocodePrecision, GeocodeResult, Geocoder } from './types.js';
import { GeocoderError } from './types.js';

export interface BanSettings {
  /** Default https://api-adresse.data.gouv.fr */
  baseUrl?: string;
  /** Lowest accepted properties.score, 0..1; default 0.5. */
  minScore?: number;
  /** Request timeout, ms; default 5000. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export const DEFAULT_BAN_BASE_URL = 'https://api-adresse.data.gouv.fr';
const PRECISIONS = new Set<GeocodePrecision>(['housenumber', 'street', 'locality', 'municipality']);

export class BanGeocoder implements Geocoder {
  readonly name = 'ban';
  private readonly baseUrl: string;
  private readonly minScore: number;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(settings: BanSettings = {}) {
    this.baseUrl = (settings.baseUrl ?? DEFAULT_BAN_BASE_URL).replace(/\/+$/, '');
    this.minScore = settings.minScore ?? 0.5;
    this.timeoutMs = settings.timeoutMs ?? 5000;
    this.headers = settings.headers ?? {};
  }

  async geocode(a: Address, opts: GeocodeOptions = {}): Promise<GeocodeResult> {
    const params = new URLSearchParams({ q: `${a.street} ${a.city}`.trim(), limit: '1' });
    const pc = normalisePostalCode(a.postalCode);
    if (/^\d{5}$/.test(pc)) params.set('postcode', pc);
    const body = await getJson(this.name, `${this.baseUrl}/search/?${params.toString()}`, {
      timeoutMs: this.timeoutMs,
      signal: opts.signal,
      headers: this.headers,
    });
    const features = (body as { features?: unknown } | null)?.features;
    if (!Array.isArray(features)) throw new GeocoderError(this.name, 'malformed response: no features array');
    if (features.length === 0) return null;
    const f = features[0] as { geometry?: { coordinates?: unknown }; properties?: { score?: unknown; type?: unknown } };
    const coords = f?.geometry?.coordinates;
    if (!Array.isArray(coords) || !isFiniteNumber(coords[0]) || !isFiniteNumber(coords[1])) {
      throw new GeocoderError(this.name, 'malformed response: features[0].geometry.coordinates');
    }
    const score = f.properties?.score;
    if (!isFiniteNumber(score)) throw new GeocoderError(this.name, 'malformed response: features[0].properties.score');
    if (score < this.minScore) return null;
    const type = f.properties?.type;
    const precision: GeocodePrecision = PRECISIONS.has(type as GeocodePrecision) ? (type as GeocodePrecision) : 'locality';
    return { latitude: coords[1], longitude: coords[0], precision, provider: this.name };
  }
}
