import { fetchText, FetchFailure, type FetchTextOptions } from '../http.js';
import { GeocoderError } from './types.js';

/**
 * Sends one request and returns the body text of a 2xx answer; every failure becomes a GeocoderError:
 * no answer → `unreachable` (and `timedOut` for the client-side timeout); an error status → `status`,
 * with `retryAfterMs` when a 429 or 503 carries Retry-After. An abort of the caller's signal rejects
 * with the signal's reason.
 */
export async function requestText(provider: string, url: string, opts: FetchTextOptions): Promise<string> {
  let res: Response;
  let text: string;
  try {
    ({ res, text } = await fetchText(url, opts));
  } catch (err) {
    // the caller gave up (client gone, request deadline): not a failure of the service
    if (err instanceof FetchFailure && err.reason === 'aborted') throw opts.signal?.reason ?? err;
    if (err instanceof FetchFailure)
      throw new GeocoderError(provider, err.message, {
        timedOut: err.reason === 'timeout',
        unreachable: true,
        cause: err.cause,
      });
    throw err;
  }
  if (!res.ok) {
    const retryAfterMs =
      res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
    throw new GeocoderError(provider, `HTTP ${res.status}: ${text.slice(0, 200)}`, {
      status: res.status,
      retryAfterMs,
    });
  }
  return text;
}

/** GET a JSON document with a timeout; every failure becomes a GeocoderError. */
export async function getJson(
  provider: string,
  url: string,
  opts: Omit<FetchTextOptions, 'method' | 'body'>,
): Promise<unknown> {
  const text = await requestText(provider, url, opts);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new GeocoderError(provider, 'malformed response: not JSON', { cause: err });
  }
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export const isFiniteNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
