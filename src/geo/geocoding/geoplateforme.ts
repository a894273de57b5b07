/**
 * The IGN Géoplateforme geocoding service, the successor of the national address API (same BAN
 * data, the addok engine family): free, no key, at most 50 requests per second per IP address
 * (429 beyond). Documentation: https://geoservices.ign.fr/documentation/services/services-geoplateforme/geocodage
 *
 *   GET  {baseUrl}/search?q=..&postcode=..&limit=1&autocomplete=0&index=address → GeoJSON FeatureCollection
 *   POST {baseUrl}/search/csv                                                    → CSV batch
 *
 * The protocol is addok's (see addok.ts); this module holds what is particular to the public service.
 */
import { AddokGeocoder } from './addok.js';
import { EngineGuard, type GuardSettings } from './guard.js';
import type { GeoLogger } from '../logger.js';

export const DEFAULT_GEOPLATEFORME_BASE_URL = 'https://data.geopf.fr/geocodage';
/** The service's documented limit per IP address. */
export const GEOPLATEFORME_MAX_REQUESTS_PER_SECOND = 50;

export interface GeoplateformeSettings extends Omit<GuardSettings, 'maxWaitMs' | 'logger'> {
  /** Default https://data.geopf.fr/geocodage */
  baseUrl?: string;
  /** Lowest accepted properties.score, 0..1; default 0.5. */
  minScore?: number;
  /** Timeout of each request, ms; default 5000. */
  timeoutMs?: number;
  /** More addresses than this in one lookup → one CSV batch request; default 20. */
  batchThreshold?: number;
}

export class GeoplateformeGeocoder extends AddokGeocoder {
  constructor(settings: GeoplateformeSettings = {}, logger?: GeoLogger) {
    const timeoutMs = settings.timeoutMs ?? 5000;
    super({
      name: 'geoplateforme',
      baseUrl: settings.baseUrl ?? DEFAULT_GEOPLATEFORME_BASE_URL,
      searchPath: '/search',
      csvPath: '/search/csv',
      extraParams: { index: 'address' },
      minScore: settings.minScore ?? 0.5,
      timeoutMs,
      batchThreshold: settings.batchThreshold ?? 20,
      guard: new EngineGuard('geoplateforme', {
        ratePerSecond: settings.ratePerSecond ?? GEOPLATEFORME_MAX_REQUESTS_PER_SECOND,
        breakerFailures: settings.breakerFailures,
        breakerCooldownMs: settings.breakerCooldownMs,
        maxAttempts: settings.maxAttempts,
        maxWaitMs: timeoutMs,
        logger,
      }),
      logger,
    });
  }
}
