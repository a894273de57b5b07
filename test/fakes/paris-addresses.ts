/** Twenty Paris addresses for the fake geocoders: shared with bench:geocoding (scripts/lib/paris-addresses.ts). */
export * from '../../scripts/lib/paris-addresses.js';
