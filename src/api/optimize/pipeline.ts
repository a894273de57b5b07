/**
 * The route part of POST /api/v1/optimize: locations → travel matrix → solver
 * → Paris-time schedule. Each step is a module of its own; this one wires
 * them and maps their failures to the spec's error codes.
 */
import { DomainError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import { geocodeAll, GeocodingFailedError, type GeocodedPoint, type Geocoder, type Point, type RoutingProvider, type TravelMatrix } from '../../geo/index.js';
import { buildSchedule, resolveDeparture, solverDeadlineOffsetS } from '../../schedule/index.js';
import { SolverError } from '../../solver/errors.js';
import type { SolveProblem, SolveResult } from '../../solver/types.js';
import { inputOrderAtSamePlace } from './colocated.js';
import { describeGeocodingFailure, geocodingWarnings, type ResolvedLocation } from './geocoding-report.js';
import { isAddress, type Location, type OptimizeRequest } from './schema.js';
import type { OptimizeContext, RouteOptimizer, RouteResult } from './types.js';

/** The solver pool as this pipeline uses it. */
export interface RouteSolver {
  solve(problem: SolveProblem, options?: { timeLimitMs?: number; signal?: AbortSignal }): Promise<SolveResult>;
}

export interface PipelineDeps {
  geocoder: Geocoder;
  geocodeConcurrency: number;
  /** Live keys: the configured chain, with fallback. */
  routing: RoutingProvider;
  /** Test keys: the sandbox engine, no fallback (failure → 503 sandbox_unavailable). */
  sandboxRouting: RoutingProvider;
  solver: RouteSolver;
  solverTimeLimitMs: number;
  clock: () => Date;
  logger: Logger;
  metrics?: Metrics;
}

export class OptimizePipeline implements RouteOptimizer {
  constructor(private readonly deps: PipelineDeps) {}

  async optimize(request: OptimizeRequest, context: OptimizeContext): Promise<RouteResult> {
    const departure = resolveDeparture(request.departureTime, this.deps.clock());
    const locations = await this.resolveLocations(request, context);
    const points = locations.map((l) => l.point);
    const matrix = await this.travelMatrix(points, request.avoidTolls ?? false, context);
    const hasEnd = request.end !== undefined;

    const size = points.length;
    const durations = new Int32Array(size * size);
    for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) durations[i * size + j] = Math.round(matrix.durationsS[i][j]);
    const problem: SolveProblem = {
      durations,
      size,
      hasEnd,
      serviceS: Int32Array.from(request.stops, (s) => Math.round(s.serviceSeconds ?? 0)),
      deadlineS: Int32Array.from(request.stops, (s) => solverDeadlineOffsetS(s.deadline, departure)),
    };
    const solution = await this.solve(problem, context);

    const stops = request.stops.map((s) => ({ id: s.id, serviceS: s.serviceSeconds, deadline: s.deadline }));
    const scheduleOf = (order: readonly number[]) => buildSchedule({ departure, order, stops, durationsS: matrix.durationsS, distancesM: matrix.distancesM, hasEnd });
    const hasDeadlines = request.stops.some((s) => s.deadline !== undefined);
    const order = inputOrderAtSamePlace(solution.order, points.slice(1, request.stops.length + 1), hasDeadlines ? (o) => scheduleOf(o).totalLatenessS : () => 0);
    const schedule = scheduleOf(order);
    const warnings = geocodingWarnings(locations);
    return {
      order: order.map((i) => request.stops[i].id),
      waypoints: order.map((i, position) => {
        const location = locations[i + 1]!;
        return {
          id: request.stops[i].id,
          order: position + 1,
          latitude: location.point.latitude,
          longitude: location.point.longitude,
          ...(location.geocoding ? { geocoding: location.geocoding } : {}),
        };
      }),
      totalDistanceKm: schedule.totalDistanceKm,
      estimatedTimeMin: schedule.estimatedTimeMin,
      schedule: schedule.schedule,
      departAt: schedule.departAt,
      returnAt: schedule.returnAt,
      lateStops: schedule.lateStops,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }

  /** [start, ...stops, end?] as points; addresses go through the geocoder chain and keep how they were placed. */
  private async resolveLocations(request: OptimizeRequest, context: OptimizeContext): Promise<ResolvedLocation[]> {
    const labelled: Array<{ label: string; role: ResolvedLocation['role']; stopId?: string; location: Location }> = [
      { label: 'start', role: 'start', location: request.start },
      ...request.stops.map((s, i) => ({ label: `stops[${i}] (id ${JSON.stringify(s.id)})`, role: 'stop' as const, stopId: s.id, location: s as Location })),
      ...(request.end ? [{ label: 'end', role: 'end' as const, location: request.end }] : []),
    ];
    const toGeocode = labelled.filter((l) => isAddress(l.location));
    const found = new Map<string, GeocodedPoint>();
    if (toGeocode.length > 0) {
      try {
        const results = await geocodeAll(
          toGeocode.map((l) => ({ label: l.label, address: l.location as { street: string; postalCode: string; city: string } })),
          this.deps.geocoder,
          { concurrency: this.deps.geocodeConcurrency, signal: context.signal },
        );
        toGeocode.forEach((l, i) => found.set(l.label, results[i]!));
        this.deps.metrics?.geocoderCalls.inc({ outcome: 'found' }, results.length);
      } catch (err) {
        if (err instanceof GeocodingFailedError) {
          for (const failure of err.failures) this.deps.metrics?.geocoderCalls.inc({ outcome: failure.reason });
          this.deps.logger.info({ requestId: context.requestId, failures: err.failures.map((f) => ({ label: f.label, reason: f.reason, error: f.error?.message })) }, 'geocoding failed');
          throw new DomainError('geocoding_failed',
            `Could not geocode: ${err.failures.map(describeGeocodingFailure).join('; ')}. Check the street, postal code and city, or send coordinates. Nothing was charged.`);
        }
        throw err;
      }
    }
    return labelled.map((l): ResolvedLocation => {
      const base = { label: l.label, role: l.role, ...(l.stopId !== undefined ? { stopId: l.stopId } : {}) };
      if (!isAddress(l.location)) return { ...base, point: { latitude: l.location.latitude, longitude: l.location.longitude } };
      const r = found.get(l.label)!;
      return { ...base, point: { latitude: r.latitude, longitude: r.longitude }, geocoding: { precision: r.precision, provider: r.provider, label: r.label } };
    });
  }

  private async travelMatrix(points: Point[], avoidTolls: boolean, context: OptimizeContext): Promise<TravelMatrix> {
    const engine = context.sandbox ? 'sandbox' : 'live';
    const provider = context.sandbox ? this.deps.sandboxRouting : this.deps.routing;
    try {
      const matrix = await provider.matrix(points, { avoidTolls, signal: context.signal });
      this.deps.metrics?.routingCalls.inc({ engine, outcome: 'ok' });
      return matrix;
    } catch (err) {
      context.signal.throwIfAborted();
      this.deps.metrics?.routingCalls.inc({ engine, outcome: 'error' });
      this.deps.logger.warn({ requestId: context.requestId, engine, err: (err as Error).message }, 'routing engine failed');
      if (context.sandbox) throw new DomainError('sandbox_unavailable', 'The sandbox routing engine is temporarily unavailable. Try again shortly. Nothing was counted.');
      throw new DomainError('optimization_failed', 'No routing engine could compute travel times for these points. Nothing was charged.');
    }
  }

  private async solve(problem: SolveProblem, context: OptimizeContext): Promise<SolveResult> {
    const started = performance.now();
    try {
      const result = await this.deps.solver.solve(problem, { timeLimitMs: this.deps.solverTimeLimitMs, signal: context.signal });
      this.deps.metrics?.solverDuration.observe({ outcome: 'ok' }, (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      context.signal.throwIfAborted();
      if (err instanceof SolverError && err.code === 'queue_full') {
        this.deps.metrics?.solverDuration.observe({ outcome: 'overloaded' }, 0);
        throw new DomainError('overloaded', 'The optimizer is busy with other routes; retry in a moment. Nothing was charged.', { retryAfterSeconds: 1 });
      }
      this.deps.metrics?.solverDuration.observe({ outcome: 'error' }, (performance.now() - started) / 1000);
      this.deps.logger.error({ requestId: context.requestId, err }, 'solver failed');
      throw new DomainError('optimization_failed', 'The optimizer could not solve this route. Nothing was charged.');
    }
  }
}

