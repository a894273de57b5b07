/** One outbound request with a timeout, shared by the geocoders and the routing clients. */

export type FetchFailureReason = 'timeout' | 'aborted' | 'network';

/** The request got no answer: each client turns this into its own error type. */
export class FetchFailure extends Error {
  constructor(
    readonly reason: FetchFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchFailure';
  }
}

export interface FetchTextOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** A POST body (e.g. FormData for a multipart upload). */
  body?: FormData | string;
}

/** Sends the request and reads the body as text; the caller's signal and the timeout both cut it short. */
export async function fetchText(url: string, opts: FetchTextOptions): Promise<{ res: Response; text: string }> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    const res = await fetch(url, {
      signal,
      method: opts.method ?? 'GET',
      headers: { accept: 'application/json', ...opts.headers },
      ...(opts.body === undefined ? {} : { body: opts.body }),
    });
    return { res, text: await res.text() };
  } catch (err) {
    if (timeout.aborted && !opts.signal?.aborted)
      throw new FetchFailure('timeout', `no answer within ${opts.timeoutMs} ms`, { cause: err });
    if (opts.signal?.aborted) throw new FetchFailure('aborted', 'aborted', { cause: err });
    throw new FetchFailure('network', `request failed: ${(err as Error).message}`, { cause: err });
  }
}
