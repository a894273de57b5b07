import type { GeoLogger } from '../logger.js';
import { BanGeocoder, type BanSettings } from './ban.js';
import { CachedGeocoder, type GeocodeCache } from './cache.js';
import { GeocoderChain } from './chain.js';
import { EmbeddedGeocoder, type EmbeddedGeocoderSettings } from './embedded.js';
import { GeoplateformeGeocoder, type GeoplateformeSettings } from './geoplateforme.js';
import { NominatimGeocoder, type NominatimSettings } from './nominatim.js';
import type { GeocodePrecision, Geocoder } from './types.js';

export * from './types.js';
export * from './normalise.js';
export * from './embedded.js';
export * from './addok.js';
export * from './geoplateforme.js';
export * from './ban.js';
export * from './nominatim.js';
export * from './chain.js';
export * from './cache.js';
export * from './store-cache.js';
export * from './geocode-all.js';
export * from './guard.js';
export * from './rate-limit.js';

export const GEOCODER_NAMES = ['geoplateforme', 'embedded', 'ban', 'nominatim'] as const;
export type GeocoderName = (typeof GEOCODER_NAMES)[number];

export interface GeocoderSettings {
  embedded?: EmbeddedGeocoderSettings;
  geoplateforme?: GeoplateformeSettings;
  /** Required when 'ban' is among the names (a self-hosted addok). */
  ban?: BanSettings;
  /** Required when 'nominatim' is among the names. */
  nominatim?: NominatimSettings;
  /** Each network engine's answers are kept here, keyed "<engine>:<normalised address>". */
  cache?: GeocodeCache;
  /** Matches coarser than this do not count as found (the next engine is asked); default 'municipality'. */
  minPrecision?: GeocodePrecision;
  /** Logs fallbacks and circuit-breaker changes (warn, info). */
  logger?: GeoLogger;
}

export function createGeocoderByName(name: string, settings: GeocoderSettings = {}): Geocoder {
  switch (name.trim().toLowerCase()) {
    case 'embedded':
      return new EmbeddedGeocoder(settings.embedded);
    case 'geoplateforme':
      return new GeoplateformeGeocoder(settings.geoplateforme, settings.logger);
    case 'ban':
      if (!settings.ban?.baseUrl)
        throw new Error('geocoder "ban" needs settings.ban.baseUrl (a self-hosted addok instance)');
      return new BanGeocoder(settings.ban, settings.logger);
    case 'nominatim':
      if (!settings.nominatim?.baseUrl) throw new Error('geocoder "nominatim" needs settings.nominatim.baseUrl');
      return new NominatimGeocoder(settings.nominatim, settings.logger);
    default:
      throw new Error(`unknown geocoder "${name}" (known: ${GEOCODER_NAMES.join(', ')})`);
  }
}

/**
 * Builds a GeocoderChain from names in order, e.g. createGeocoder(['geoplateforme', 'embedded'], { cache })
 * for the default GEOCODER=geoplateforme,embedded. With a cache, each network engine is wrapped in its
 * own CachedGeocoder (the embedded gazetteer is local and needs none), so a commune-level point given
 * by the fallback while the street-level engine was down is never cached in its place.
 */
export function createGeocoder(names: readonly string[], settings: GeocoderSettings = {}): GeocoderChain {
  const list = names.map((n) => n.trim()).filter((n) => n.length > 0);
  if (list.length === 0) throw new Error('createGeocoder: at least one geocoder name is required');
  const engines = list.map((n) => {
    const g = createGeocoderByName(n, settings);
    return settings.cache && !(g instanceof EmbeddedGeocoder) ? new CachedGeocoder(g, settings.cache) : g;
  });
  return new GeocoderChain(engines, { logger: settings.logger, minPrecision: settings.minPrecision });
}

/** True when the embedded gazetteer answers first, so every address is placed at commune level (log EMBEDDED_GEOCODER_NOTICE at start-up). */
export function isCommuneLevelFirst(names: readonly string[]): boolean {
  return names[0]?.trim().toLowerCase() === 'embedded';
}
