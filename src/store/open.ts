/**
 * Opens the store the configuration asks for: PostgreSQL when DATABASE_URL is
 * set (several service instances may share it), else the embedded SQLite file
 * at DATABASE_PATH. Both apply their pending migrations on open.
 */
import type { Config } from '../config.js';
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'databasePath' | 'databaseBusyTimeoutMs'> &
    Partial<Pick<Config, 'databasePoolSize' | 'lease'>>,
): Promise<Store> {
  if (config.databaseUrl)
    return PostgresStore.open(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      lockTimeoutMs: config.databaseBusyTimeoutMs,
      // a frozen instance's open transaction must not outlive its lease (see the option)
      ...(config.lease ? { idleInTransactionTimeoutMs: config.lease.expiryMs } : {}),
    });
  return new SqliteStore(config.databasePath, { busyTimeoutMs: config.databaseBusyTimeoutMs });
}
