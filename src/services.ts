/** Builds every long-lived service from the config; main.ts and the test server share it. */
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { Billing, type Clock } from './billing/billing.js';
import { SqliteStore } from './store/sqlite.js';
import type { Store } from './store/types.js';
import type { CheckoutProvider } from './api/checkout/router.js';
import type { RouteOptimizer } from './api/optimize/types.js';
import { ApiError } from './errors.js';

export interface Services {
  store: Store;
  billing: Billing;
  optimizer: RouteOptimizer;
  checkout: CheckoutProvider | null;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
}

export async function buildServices(config: Config, logger: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const store = new SqliteStore(config.databasePath);
  const billing = new Billing(store, config.sandbox, overrides.clock);
  const optimizer: RouteOptimizer = {
    async optimize() {
      throw new ApiError(502, 'optimization_failed', 'The optimizer is not wired yet.');
    },
  };
  logger.debug({ store: store.kind }, 'services ready');
  return {
    store,
    billing,
    optimizer,
    checkout: null,
    async close() {
      await store.close();
    },
  };
}
