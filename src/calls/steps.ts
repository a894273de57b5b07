/**
 * The steps every paid call takes, with their failures mapped to the spec's error codes: geocode the
 * addresses of a call (422 geocoding_failed), one travel matrix over its places (502
 * optimization_failed, or 503 sandbox_unavailable for a test key), a solve on the worker pool
 * within the call's budget (503 overloaded, 502), and, when asked, the line of each route
 * (src/calls/geometry.ts). A call that sends its own matrix (src/calls/given-matrix.ts) asks no
 * geocoder and no routing engine.
 */
import { DomainError } from '../errors.js';
import {
  geocodeAll,
  GeocodingFailedError,
  type GeocodedPoint,
  type Geocoder,
  type HaversineProvider,
  type Point,
  type RoutedMatrix,
  type RoutingProvider,
  type TravelMatrix,
} from '../geo/index.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { SolverError } from '../solver/errors.js';
import { solverTimeLimitMs } from './budget.js';
import type { CallContext } from './charged-call.js';
import { isAddress, isIndex, type AddressLocation } from './location-schema.js';
import { routeGeometries, type RouteGeometry } from './geometry.js';
import { locateInMatrix, type CallTravel } from './given-matrix.js';
import { describeGeocodingFailure, type LabelledLocation, type ResolvedLocation } from './locations.js';
import { places } from './places.js';

export interface CallStepsDeps {
  geocoder: Geocoder;
  geocodeConcurrency: number;
  /** Live keys: the configured chain, with fallback. */
  routing: RoutingProvider;
  /** Test keys: the sandbox engine, no fallback (failure → 503 sandbox_unavailable). */
  sandboxRouting: RoutingProvider;
  /** The built-in model as configured: the distances of a caller's matrix without any, from its `locations`. */
  builtIn: HaversineProvider;
  logger: Logger;
  metrics?: Metrics;
}

/** The locations of a call, resolved, and their places: the rows of its travel matrix. */
export interface Located {
  /** In the order they were given. */
  locations: ResolvedLocation[];
  /** One point per place (src/calls/places.ts): what the matrix is asked for; null for a row of the caller's matrix without coordinates. */
  places: Array<Point | null>;
  /** The place (matrix row) of each location. */
  placeOf: number[];
  /** With the caller's own matrix: the travel between the places, read from it. */
  given?: TravelMatrix;
}

export class CallSteps {
  constructor(private readonly deps: CallStepsDeps) {}

  /**
   * Resolves `labelled` and finds their places; `matrix(located, …)` is the call's one travel matrix. With the
   * caller's own matrix (`travel.matrix`), the places are its rows and nothing is geocoded.
   */
  async locate(labelled: readonly LabelledLocation[], context: CallContext, travel: CallTravel = {}): Promise<Located> {
    if (travel.matrix)
      return locateInMatrix(
        labelled,
        { ...travel, matrix: travel.matrix },
        (a, b) => this.deps.builtIn.leg(a, b).distanceM,
      );
    const locations = await this.resolve(labelled, context);
    const distinct = places(locations.map((l) => l.point!));
    return { locations, places: distinct.points, placeOf: distinct.index };
  }

  /** The points of `labelled`, in order; addresses go through the geocoder chain and keep how they were placed. */
  async resolve(labelled: readonly LabelledLocation[], context: CallContext): Promise<ResolvedLocation[]> {
    const toGeocode = labelled.filter((l) => isAddress(l.location));
    const found = new Map<string, GeocodedPoint>();
    if (toGeocode.length > 0) {
      try {
        const results = await geocodeAll(
          toGeocode.map((l) => ({ label: l.label, address: l.location as AddressLocation })),
          this.deps.geocoder,
          { concurrency: this.deps.geocodeConcurrency, signal: context.signal },
        );
        toGeocode.forEach((l, i) => found.set(l.label, results[i]!));
        this.deps.metrics?.geocoderCalls.inc({ outcome: 'found' }, results.length);
      } catch (err) {
        if (err instanceof GeocodingFailedError) {
          for (const failure of err.failures) this.deps.metrics?.geocoderCalls.inc({ outcome: failure.reason });
          this.deps.logger.info(
            {
              requestId: context.requestId,
              failures: err.failures.map((f) => ({ label: f.label, reason: f.reason, error: f.error?.message })),
            },
            'geocoding failed',
          );
          throw new DomainError(
            'geocoding_failed',
            `Could not geocode: ${err.failures.map(describeGeocodingFailure).join('; ')}. Check the street, postal code and city, or send coordinates. Nothing was charged.`,
          );
        }
        throw err;
      }
    }
    return labelled.map(({ location, ...base }): ResolvedLocation => {
      if (isIndex(location)) throw new Error(`${base.label}: an index needs the call's matrix (locate)`);
      if (!isAddress(location))
        return { ...base, point: { latitude: location.latitude, longitude: location.longitude } };
      const r = found.get(base.label)!;
      return {
        ...base,
        point: { latitude: r.latitude, longitude: r.longitude },
        geocoding: { precision: r.precision, provider: r.provider, label: r.label },
      };
    });
  }

  /** The travel between `located.places`: the caller's matrix, else the routing engine's (its provider named). */
  async matrix(
    located: Located,
    avoidTolls: boolean,
    context: CallContext,
  ): Promise<TravelMatrix & { provider?: string }> {
    if (located.given) return located.given;
    const engine = context.sandbox ? 'sandbox' : 'live';
    const provider = this.provider(context);
    try {
      const matrix: TravelMatrix & Partial<RoutedMatrix> = await provider.matrix(known(located.places), {
        avoidTolls,
        signal: context.signal,
      });
      this.deps.metrics?.routingCalls.inc({ engine, outcome: 'ok' });
      return matrix;
    } catch (err) {
      context.signal.throwIfAborted();
      this.deps.metrics?.routingCalls.inc({ engine, outcome: 'error' });
      this.deps.logger.warn(
        { requestId: context.requestId, engine, err: (err as Error).message },
        'routing engine failed',
      );
      if (context.sandbox)
        throw new DomainError(
          'sandbox_unavailable',
          'The sandbox routing engine is temporarily unavailable. Try again shortly. Nothing was counted.',
        );
      throw new DomainError(
        'optimization_failed',
        'No routing engine could compute travel times for these points. Nothing was charged.',
      );
    }
  }

  /**
   * The line of each route (`routes[r]`: the route's locations, as indices of `located.locations`, in driving
   * order) and its legs, from the engine that gave `matrix` on (straight segments with the caller's matrix).
   */
  geometry(
    routes: readonly (readonly number[])[],
    located: Located,
    matrix: TravelMatrix & { provider?: string },
    avoidTolls: boolean,
    context: CallContext,
  ): Promise<RouteGeometry[]> {
    return routeGeometries(routes, located, matrix, {
      engine: located.given ? null : this.provider(context),
      avoidTolls,
      context,
      logger: this.deps.logger,
    });
  }

  private provider(context: CallContext): RoutingProvider {
    return context.sandbox ? this.deps.sandboxRouting : this.deps.routing;
  }

  /**
   * Runs a solve within `budgetMs` by the one budget rule (src/calls/budget.ts), timed in the solver
   * metrics; `what` names it in the failure message ("route", "plan").
   */
  async solve<T>(
    run: (timeLimitMs: number) => Promise<T>,
    budgetMs: number,
    what: string,
    context: CallContext,
  ): Promise<T> {
    const started = performance.now();
    try {
      const result = await run(solverTimeLimitMs(budgetMs, context.msLeft()));
      this.deps.metrics?.solverDuration.observe({ outcome: 'ok' }, (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      context.signal.throwIfAborted();
      if (err instanceof SolverError && err.code === 'queue_full') {
        this.deps.metrics?.solverDuration.observe({ outcome: 'overloaded' }, 0);
        throw new DomainError(
          'overloaded',
          'The optimizer is busy with other routes; retry in a moment. Nothing was charged.',
          { retryAfterSeconds: 1 },
        );
      }
      this.deps.metrics?.solverDuration.observe({ outcome: 'error' }, (performance.now() - started) / 1000);
      this.deps.logger.error({ requestId: context.requestId, err }, 'solver failed');
      throw new DomainError('optimization_failed', `The optimizer could not solve this ${what}. Nothing was charged.`);
    }
  }
}

/** The places' points when every one is known (a call without its own matrix). */
function known(points: ReadonlyArray<Point | null>): Point[] {
  if (points.some((p) => p === null)) throw new Error("a place without coordinates needs the caller's matrix");
  return points as Point[];
}

/** What an endpoint's work is built from: the steps (one instance serves every endpoint), its solver, the clock (the default departure). */
export interface CallWorkDeps<Solver> {
  steps: CallSteps;
  solver: Solver;
  clock: () => Date;
}

/**
 * A matrix as the solvers take it (travel times in whole seconds, road distances in whole metres): row-major, over
 * a SharedArrayBuffer, so that posting it to a solver worker shares it instead of copying it (400 MB at 10,000
 * places).
 */
export function wholeRowMajor(cells: readonly (readonly number[])[]): Int32Array {
  const size = cells.length;
  const out = new Int32Array(new SharedArrayBuffer(size * size * Int32Array.BYTES_PER_ELEMENT));
  cells.forEach((row, i) => {
    for (let j = 0; j < size; j++) out[i * size + j] = Math.round(row[j]!);
  });
  return out;
}

/** The matrix between `at` (matrix rows, e.g. each location's place), row for row. */
export function matrixAt(matrix: TravelMatrix, at: readonly number[]): TravelMatrix {
  const pick = (cells: readonly (readonly number[])[]): number[][] =>
    at.map((from) => at.map((to) => cells[from]![to]!));
  return { durationsS: pick(matrix.durationsS), distancesM: pick(matrix.distancesM) };
}
