import type { RateLimitState } from '../errors.js';

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) for any answer that is subject to a
 * limit; a refusal (`refused`) also gets Retry-After, equal to the reset (at least 1 s).
 */
export function rateLimitHeaders(state: RateLimitState, refused = false): Record<string, string> {
  const reset = Math.max(refused ? 1 : 0, Math.ceil(state.resetSeconds));
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(Math.max(0, state.remaining)),
    'RateLimit-Reset': String(reset),
  };
  if (refused) headers['Retry-After'] = String(reset);
  return headers;
}
