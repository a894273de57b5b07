import { GeocoderError } from './types.js';

/** GET a JSON document with a timeout; every failure becomes a GeocoderError. */
export async function getJson(
  provider: string,
  url: string,
  opts: { timeoutMs: number; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { signal, headers: { accept: 'application/json', ...opts.headers } });
    text = await res.text();
  } catch (err) {
    if (timeout.aborted && !opts.signal?.aborted) {
      throw new GeocoderError(provider, `no answer within ${opts.timeoutMs} ms`, { timedOut: true, cause: err });
    }
    if (opts.signal?.aborted) throw new GeocoderError(provider, 'aborted', { cause: err });
    throw new GeocoderError(provider, `request failed: ${(err as Error).message}`, { cause: err });
  }
  if (!res.ok) throw new GeocoderError(provider, `HTTP ${res.status}: ${text.slice(0, 200)}`, { status: res.status });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new GeocoderError(provider, 'malformed response: not JSON', { status: res.status, cause: err });
  }
}

export const isFiniteNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
