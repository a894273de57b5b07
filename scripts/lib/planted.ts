/**
 * The planted-deadline instance generator of `bench:deadlines`, reached through
 * here so the benchmarks share one generator (scripts/bench-deadlines.ts owns it).
 */
import { plantedInstance } from '../bench-deadlines.ts';

export { plantedInstance };

/** A planted-deadline family (the parameters plantedInstance takes). */
export type PlantedFamily = Parameters<typeof plantedInstance>[0];
