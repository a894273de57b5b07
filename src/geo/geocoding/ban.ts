/**
 * BAN geocoder: a self-hosted addok instance serving the Base Adresse Nationale (addok-docker).
 * The old public host of the national address API was shut down at the end of January 2026; its
 * successor is the Géoplateforme service (geoplateforme.ts). `baseUrl` is therefore required.
 *
 *   GET  {baseUrl}/search/?q=<street> <city>&postcode=<postal code>&limit=1&autocomplete=0 → GeoJSON
 *   POST {baseUrl}/search/csv/ (the addok-csv plugin) → CSV batch; an instance without the plugin
 *        answers 404 once, and the addresses are then looked up one by one.
 */
import { AddokGeocoder } from './addok.js';
import { EngineGuard, type GuardSettings } from './guard.js';
import type { GeoLogger } from '../logger.js';

export interface BanSettings extends Omit<GuardSettings, 'maxWaitMs' | 'logger'> {
  /** Root of the addok instance, e.g. http://localhost:7878. Required. */
  baseUrl: string;
  /** Lowest accepted properties.score, 0..1; default 0.5. */
  minScore?: number;
  /** Request timeout, ms; default 5000. */
  timeoutMs?: number;
  /** More addresses than this in one lookup → one CSV batch request; default 20. */
  batchThreshold?: number;
  headers?: Record<string, string>;
}

export class BanGeocoder extends AddokGeocoder {
  constructor(settings: BanSettings, logger?: GeoLogger) {
    if (!settings?.baseUrl) throw new Error('ban: baseUrl is required (the root of your addok instance)');
    const timeoutMs = settings.timeoutMs ?? 5000;
    super({
      name: 'ban',
      baseUrl: settings.baseUrl,
      searchPath: '/search/',
      csvPath: '/search/csv/',
      minScore: settings.minScore ?? 0.5,
      timeoutMs,
      batchThreshold: settings.batchThreshold ?? 20,
      guard: new EngineGuard('ban', {
        ratePerSecond: settings.ratePerSecond ?? 0,
        breakerFailures: settings.breakerFailures,
        breakerCooldownMs: settings.breakerCooldownMs,
        maxAttempts: settings.maxAttempts,
        maxWaitMs: timeoutMs,
        logger,
      }),
      headers: settings.headers,
      logger,
    });
  }
}
