import type { ParameterizedContext } from 'koa';
import type { ApiKeyRecord } from '../store/types.js';

export interface AppState {
  requestId: string;
  /** Set by the auth middleware on routes that need a key. */
  apiKey?: ApiKeyRecord;
}

export type AppContext = ParameterizedContext<AppState>;
