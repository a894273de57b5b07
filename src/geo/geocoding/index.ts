import type { GeoLogger } from '../logger.js';
import { BanGeocoder, type BanSettings } from './ban.js';
import { GeocoderChain } from './chain.js';
import { EmbeddedGeocoder, type EmbeddedGeocoderSettings } from './embedded.js';
import { NominatimGeocoder, type NominatimSettings } from './nominatim.js';
import type { Geocoder } from './types.js';

export * from './types.js';
export * from './normalise.js';
export * from './embedded.js';
export * from './ban.js';
export * from './nominatim.js';
export * from './chain.js';
export * from './cache.js';
export * from './store-cache.js';
export * from './geocode-all.js';

export const GEOCODER_NAMES = ['embedded', 'ban', 'nominatim'] as const;
export type GeocoderName = (typeof GEOCODER_NAMES)[number];

export interface GeocoderSettings {
  embedded?: EmbeddedGeocoderSettings;
  ban?: BanSettings;
  /** Required when 'nominatim' is among the names. */
  nominatim?: NominatimSettings;
  /** Logs fallbacks (warn). */
  logger?: GeoLogger;
}

export function createGeocoderByName(name: string, settings: GeocoderSettings = {}): Geocoder {
  switch (name.trim().toLowerCase()) {
    case 'embedded':
      return new EmbeddedGeocoder(settings.embedded);
    case 'ban':
      return new BanGeocoder(settings.ban);
    case 'nominatim':
      if (!settings.nominatim?.baseUrl) throw new Error('geocoder "nominatim" needs settings.nominatim.baseUrl');
      return new NominatimGeocoder(settings.nominatim);
    default:
      throw new Error(`unknown geocoder "${name}" (known: ${GEOCODER_NAMES.join(', ')})`);
  }
}

/**
 * Builds a GeocoderChain from names in order, e.g. createGeocoder(['ban', 'embedded'], { ban: { baseUrl } })
 * for GEOCODER=ban,embedded. Wrap the result in CachedGeocoder to add the cache.
 */
export function createGeocoder(names: readonly string[], settings: GeocoderSettings = {}): GeocoderChain {
  const list = names.map((n) => n.trim()).filter((n) => n.length > 0);
  if (list.length === 0) throw new Error('createGeocoder: at least one geocoder name is required');
  return new GeocoderChain(list.map((n) => createGeocoderByName(n, settings)), { logger: settings.logger });
}

/** True when the chain's answers can be commune-level only (log EMBEDDED_GEOCODER_NOTICE at start-up). */
export function usesEmbeddedGeocoder(names: readonly string[]): boolean {
  return names.some((n) => n.trim().toLowerCase() === 'embedded');
}
