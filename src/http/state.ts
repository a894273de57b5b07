import type { ParameterizedContext } from 'koa';
import type { ApiKeyRecord } from '../billing/billing.js';

export interface AppState {
  /** The service's own id of this request (a random UUID). */
  requestId: string;
  /** The caller's X-Request-Id, when it sent a short, plain one. */
  clientRequestId?: string;
  /** Set by the auth middleware on routes that need a key. */
  apiKey?: ApiKeyRecord;
}

export type AppContext = ParameterizedContext<AppState>;
