import type { GeoLogger } from '../logger.js';
import type { MatrixOptions, Point, RoutedMatrix, RoutingProvider } from './types.js';
import { RoutingError } from './types.js';

/**
 * Tries routing providers in order: when one fails (error, HTTP error, timeout) the next is asked,
 * and the failure is logged at warn level. The result records which provider answered.
 * A chain of one provider has no fallback: its error is rethrown as a RoutingError.
 * An abort of the caller's own signal stops the chain immediately (no fallback).
 */
export class RoutingChain implements RoutingProvider {
  readonly name: string;
  readonly providers: readonly RoutingProvider[];
  private readonly logger?: GeoLogger;

  constructor(providers: RoutingProvider[], opts: { logger?: GeoLogger } = {}) {
    if (providers.length === 0) throw new Error('RoutingChain needs at least one provider');
    this.providers = providers;
    this.name = providers.map((p) => p.name).join(',');
    this.logger = opts.logger;
  }

  async matrix(points: Point[], opts: MatrixOptions): Promise<RoutedMatrix> {
    const errors: Error[] = [];
    for (let k = 0; k < this.providers.length; k++) {
      const p = this.providers[k]!;
      try {
        const m = await p.matrix(points, opts);
        if (k > 0)
          this.logger?.info({ provider: p.name, points: points.length }, 'routing: answered by fallback provider');
        return { durationsS: m.durationsS, distancesM: m.distancesM, provider: p.name };
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        if (opts.signal?.aborted) throw err;
        errors.push(e);
        const nextName = this.providers[k + 1]?.name;
        this.logger?.warn(
          {
            provider: p.name,
            err: { message: e.message, name: e.name },
            next: nextName ?? null,
            points: points.length,
          },
          nextName
            ? `routing: ${p.name} failed, falling back to ${nextName}`
            : `routing: ${p.name} failed, no fallback left`,
        );
      }
    }
    if (this.providers.length === 1 && errors[0] instanceof RoutingError) throw errors[0];
    const last = errors[errors.length - 1];
    throw new RoutingError('chain', `every routing provider failed: ${errors.map((e) => e.message).join('; ')}`, {
      errors,
      timedOut: errors.every((e) => e instanceof RoutingError && e.timedOut),
      cause: last,
    });
  }
}
