/**
 * The one error type the HTTP layer understands. Throw it with the spec's code;
 * the error middleware turns it into the Error body `{error, message, ...extra}`.
 */
export type ErrorExtra = Record<string, string | number | boolean | null>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: ErrorExtra;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, extra: ErrorExtra = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const invalidRequest = (message: string): ApiError => new ApiError(400, 'invalid_request', message);
export const unauthorized = (message = 'A valid API key is required: send "Authorization: Bearer <API_KEY>".'): ApiError =>
  new ApiError(401, 'unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer realm="api"' });
