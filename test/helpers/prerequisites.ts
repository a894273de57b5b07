/** Shared with the benchmarks: it lives in scripts/lib (benches never import test/). */
export * from '../../scripts/lib/prerequisites.js';
