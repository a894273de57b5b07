import type { GeoLogger } from '../logger.js';
import { RoutingChain } from './chain.js';
import { HaversineProvider, type HaversineSettings } from './haversine.js';
import { OsrmProvider, type OsrmSettings } from './osrm.js';
import type { RoutingProvider } from './types.js';

export * from './types.js';
export * from './haversine.js';
export * from './osrm.js';
export { osrmRoute } from './osrm-route.js';
export * from './chain.js';

export const ROUTING_PROVIDER_NAMES = ['haversine', 'osrm'] as const;
export type RoutingProviderName = (typeof ROUTING_PROVIDER_NAMES)[number];

export interface RoutingSettings {
  /** Settings of the built-in model; all optional. */
  haversine?: HaversineSettings;
  /** Required when 'osrm' is among the names. */
  osrm?: OsrmSettings;
  /** Logs fallbacks (warn) and answers by a fallback provider (info). */
  logger?: GeoLogger;
}

/** Builds one provider by name; throws a plain Error naming the problem for an unknown name or missing settings. */
export function createRoutingProvider(name: string, settings: RoutingSettings = {}): RoutingProvider {
  switch (name.trim().toLowerCase()) {
    case 'haversine':
      return new HaversineProvider(settings.haversine);
    case 'osrm':
      if (!settings.osrm?.baseUrl) throw new Error('routing provider "osrm" needs settings.osrm.baseUrl');
      return new OsrmProvider(settings.osrm);
    default:
      throw new Error(`unknown routing provider "${name}" (known: ${ROUTING_PROVIDER_NAMES.join(', ')})`);
  }
}

/**
 * Builds a chain from names in order, e.g. createRouting(['osrm', 'haversine'], { osrm: { baseUrl } }).
 * A single name gives a chain without fallback (e.g. the sandbox engine: createRouting(['haversine'], {})).
 * The chain's matrix() result carries `provider`, the name of the provider that answered.
 */
export function createRouting(names: readonly string[], settings: RoutingSettings = {}): RoutingChain {
  const list = names.map((n) => n.trim()).filter((n) => n.length > 0);
  if (list.length === 0) throw new Error('createRouting: at least one routing provider name is required');
  return new RoutingChain(
    list.map((n) => createRoutingProvider(n, settings)),
    { logger: settings.logger },
  );
}
