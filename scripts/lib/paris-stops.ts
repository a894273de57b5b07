/**
 * The benchmarks' stops: a reproducible draw (LCG) in a 0.16° × 0.26° box south-west of central Paris, so
 * bench:api's requests and bench:solver-service's instance 0 are the same stops.
 */
export function parisStops(count: number, seed: number): Array<{ id: string; latitude: number; longitude: number }> {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: `p${i}`,
    latitude: 48.78 + rand() * 0.16,
    longitude: 2.22 + rand() * 0.26,
  }));
}

/** Coordinates around Paris for sandbox-sized requests (the tests' stops, and bench:restart's). */
export function coordinateStops(count: number, seed = 1): Array<{ id: string; latitude: number; longitude: number }> {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: `s${i + 1}`,
    latitude: 48.8 + rand() * 0.12,
    longitude: 2.25 + rand() * 0.2,
  }));
}

export const PARIS_START = { latitude: 48.8566, longitude: 2.3522 };
