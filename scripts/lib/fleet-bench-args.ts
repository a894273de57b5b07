/**
 * The options every fleet bench of `bench:solver` takes (Solomon and Gehring–Homberger, Li & Lim): one reader, so
 * that each bench's parser handles only its own.
 */
import { DEFAULT_WASM_PATH } from '../../src/solver/load.js';
import type { ArgReader } from './cli-args.js';

export interface FleetBenchArgs {
  dir: string;
  timeLimitMs: number;
  maxIterations: number;
  vehiclesFirst: boolean;
  json: boolean;
  seed: number;
  only: string[];
  cpuClock: boolean;
  wasm: string;
}

export function fleetBenchDefaults(): FleetBenchArgs {
  return {
    dir: '',
    timeLimitMs: 1000,
    maxIterations: 0,
    vehiclesFirst: false,
    json: false,
    seed: 1,
    only: [],
    cpuClock: false,
    wasm: DEFAULT_WASM_PATH,
  };
}

/** Reads option `k` into `a` when it is one of the common ones (its value from `args`); false otherwise. */
export function readCommonFleetArg(k: string, args: ArgReader, a: FleetBenchArgs): boolean {
  switch (k) {
    case '--time-limit-ms':
      a.timeLimitMs = args.integer();
      return true;
    case '--max-iterations':
      a.maxIterations = args.integer();
      return true;
    case '--json':
      a.json = true;
      return true;
    case '--seed':
      a.seed = args.integer();
      return true;
    case '--only':
      a.only = args
        .value()
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean);
      return true;
    case '--cpu-clock':
      a.cpuClock = true;
      return true;
    case '--wasm':
      a.wasm = args.file();
      return true;
    default:
      return false;
  }
}
