export * from './routing/index.js';
export * from './geocoding/index.js';
export type { GeoLogger } from './logger.js';
