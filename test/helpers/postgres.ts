/** The throwaway PostgreSQL cluster is shared with the benchmarks: it lives in scripts/lib (benches never import test/). */
export * from '../../scripts/lib/postgres-cluster.js';
