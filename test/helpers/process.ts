/** The service-process helper is shared with the benchmarks: it lives in scripts/lib (benches never import test/). */
export * from '../../scripts/lib/service-process.js';
