/**
 * Nominatim geocoder (OpenStreetMap), structured search:
 *
 *   GET {baseUrl}/search?street=..&postalcode=..&city=..&country=fr&format=jsonv2&limit=1&addressdetails=0
 *   → [{ lat: "48.85", lon: "2.35", importance: 0.3, place_rank: 30, ... }] (empty array: not found)
 *
 * A result whose `importance` is below `minImportance` → null (default 0: accept any result;
 * Nominatim's importance measures how notable a place is, not how well it matched).
 * Precision from place_rank: ≥ 28 housenumber, 26–27 street, 17–25 locality, else municipality.
 * Sends a User-Agent (required by the Nominatim usage policy). The public instance
 * (https://nominatim.openstreetmap.org) allows at most 1 request/s: set minIntervalMs: 1000 there.
 * Requests go through the engine's guard (circuit breaker, 429 back-off; see guard.ts).
 */
import type { GeoLogger } from '../logger.js';
import { EngineGuard, type GuardSettings } from './guard.js';
import { getJson, isFiniteNumber } from './http.js';
import { normalisePostalCode } from './normalise.js';
import type { Address, GeocodeOptions, GeocodePrecision, GeocodeResult, Geocoder } from './types.js';
import { GeocoderError } from './types.js';

export interface NominatimSettings extends Omit<GuardSettings, 'maxWaitMs' | 'logger' | 'ratePerSecond'> {
  /** Server root, e.g. "http://localhost:8080" or "https://nominatim.openstreetmap.org". Required. */
  baseUrl: string;
  /** Lowest accepted `importance`; default 0. */
  minImportance?: number;
  /** Request timeout, ms; default 5000. */
  timeoutMs?: number;
  /** Default "route-optimization-service/1.0". Put a contact in it for a public instance. */
  userAgent?: string;
  /** Minimum delay between the starts of two requests from this client, ms; default 0. */
  minIntervalMs?: number;
  /** Optional `email` parameter (Nominatim usage policy). */
  email?: string;
}

export const DEFAULT_NOMINATIM_USER_AGENT = 'route-optimization-service/1.0';

export class NominatimGeocoder implements Geocoder {
  readonly name = 'nominatim';
  private readonly baseUrl: string;
  private readonly minImportance: number;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly minIntervalMs: number;
  private readonly email?: string;
  private nextSlot = 0;
  readonly guard: EngineGuard;

  constructor(settings: NominatimSettings, logger?: GeoLogger) {
    if (!settings?.baseUrl) throw new Error('nominatim: baseUrl is required');
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.minImportance = settings.minImportance ?? 0;
    this.timeoutMs = settings.timeoutMs ?? 5000;
    this.userAgent = settings.userAgent ?? DEFAULT_NOMINATIM_USER_AGENT;
    this.minIntervalMs = settings.minIntervalMs ?? 0;
    this.email = settings.email;
    this.guard = new EngineGuard(this.name, {
      breakerFailures: settings.breakerFailures,
      breakerCooldownMs: settings.breakerCooldownMs,
      maxAttempts: settings.maxAttempts,
      maxWaitMs: this.timeoutMs,
      logger,
    });
  }

  private async throttle(signal?: AbortSignal): Promise<void> {
    if (this.minIntervalMs <= 0) return;
    const now = Date.now();
    const at = Math.max(now, this.nextSlot);
    this.nextSlot = at + this.minIntervalMs;
    if (at > now) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, at - now);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            reject(new GeocoderError(this.name, 'aborted'));
          },
          { once: true },
        );
      });
    }
  }

  async geocode(a: Address, opts: GeocodeOptions = {}): Promise<GeocodeResult> {
    return this.guard.run(() => this.search(a, opts), opts.signal);
  }

  private async search(a: Address, opts: GeocodeOptions): Promise<GeocodeResult> {
    const params = new URLSearchParams({
      street: a.street,
      postalcode: normalisePostalCode(a.postalCode),
      city: a.city,
      country: 'fr',
      format: 'jsonv2',
      limit: '1',
      addressdetails: '0',
    });
    if (this.email) params.set('email', this.email);
    await this.throttle(opts.signal);
    const body = await getJson(this.name, `${this.baseUrl}/search?${params.toString()}`, {
      timeoutMs: this.timeoutMs,
      signal: opts.signal,
      headers: { 'user-agent': this.userAgent },
    });
    if (!Array.isArray(body)) throw new GeocoderError(this.name, 'malformed response: not an array');
    if (body.length === 0) return null;
    const r = body[0] as {
      lat?: unknown;
      lon?: unknown;
      importance?: unknown;
      place_rank?: unknown;
      display_name?: unknown;
    };
    const lat = typeof r?.lat === 'string' ? Number(r.lat) : r?.lat;
    const lon = typeof r?.lon === 'string' ? Number(r.lon) : r?.lon;
    if (!isFiniteNumber(lat) || !isFiniteNumber(lon)) throw new GeocoderError(this.name, 'malformed response: lat/lon');
    const importance = isFiniteNumber(r.importance) ? r.importance : 0;
    if (importance < this.minImportance) return null;
    const rank = isFiniteNumber(r.place_rank) ? r.place_rank : 0;
    const precision: GeocodePrecision =
      rank >= 28 ? 'housenumber' : rank >= 26 ? 'street' : rank >= 17 ? 'locality' : 'municipality';
    const label =
      typeof r.display_name === 'string'
        ? r.display_name
        : `${a.street}, ${normalisePostalCode(a.postalCode)} ${a.city}`;
    return { latitude: lat, longitude: lon, precision, provider: this.name, label };
  }
}
