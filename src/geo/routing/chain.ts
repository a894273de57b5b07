import type { GeoLogger } from '../logger.js';
import type { MatrixOptions, Point, RoutedMatrix, RouteLine, RouteOptions, RoutingProvider } from './types.js';
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
    return this.first(0, points.length, 'matrix', opts, async (p) => {
      const m = await p.matrix(points, opts);
      return { durationsS: m.durationsS, distancesM: m.distancesM, provider: p.name };
    });
  }

  /** The line through `points`, from `opts.provider` on (the one that answered the call's matrix) when named. */
  async route(points: Point[], opts: RouteOptions): Promise<RouteLine> {
    const from = Math.max(
      0,
      opts.provider === undefined ? 0 : this.providers.findIndex((p) => p.name === opts.provider),
    );
    return this.first(from, points.length, 'route', opts, async (p) => ({
      ...(await p.route(points, opts)),
      provider: p.name,
    }));
  }

  /** The answer of the first provider from `from` on that gives one. */
  private async first<T>(
    from: number,
    points: number,
    what: string,
    opts: MatrixOptions,
    ask: (provider: RoutingProvider) => Promise<T>,
  ): Promise<T> {
    const errors: Error[] = [];
    const providers = this.providers.slice(from);
    for (let k = 0; k < providers.length; k++) {
      const p = providers[k]!;
      try {
        const answer = await ask(p);
        if (k + from > 0)
          this.logger?.info({ provider: p.name, points, what }, 'routing: answered by fallback provider');
        return answer;
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        if (opts.signal?.aborted) throw err;
        errors.push(e);
        const nextName = providers[k + 1]?.name;
        this.logger?.warn(
          {
            provider: p.name,
            err: { message: e.message, name: e.name },
            next: nextName ?? null,
            points,
            what,
          },
          nextName
            ? `routing: ${p.name} failed, falling back to ${nextName}`
            : `routing: ${p.name} failed, no fallback left`,
        );
      }
    }
    if (providers.length === 1 && errors[0] instanceof RoutingError) throw errors[0];
    const last = errors[errors.length - 1];
    throw new RoutingError('chain', `every routing provider failed: ${errors.map((e) => e.message).join('; ')}`, {
      errors,
      timedOut: errors.every((e) => e instanceof RoutingError && e.timedOut),
      cause: last,
    });
  }
}
