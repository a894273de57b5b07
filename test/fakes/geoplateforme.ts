/** The fake Géoplateforme geocoder lives with the benchmark that also runs it (scripts/lib/fake-geoplateforme.ts). */
export * from '../../scripts/lib/fake-geoplateforme.js';
