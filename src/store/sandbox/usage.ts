/**
 * The one query both stores count sandbox usage with. No upper bound on the instant: a call stamped a moment
 * later by another process's clock, yet reserved first, still counts. A released call's stops do not count
 * toward the day; the call itself still counts toward the minute.
 */
import type { SandboxUsage } from './types.js';

/** `p` names the parameters: '@' for SQLite's named ones, '$' for PostgreSQL's numbered ones ($1 key, $2 window start, $3 day). */
export const SANDBOX_USAGE_SQL = (p: '@' | '$'): string => {
  const [key, since, day] = p === '@' ? ['@keyId', '@windowStartMs', '@day'] : ['$1', '$2', '$3'];
  return `SELECT
    (SELECT COUNT(*) FROM sandbox_calls WHERE key_id = ${key} AND at_ms >= ${since}) AS calls,
    (SELECT MIN(at_ms) FROM sandbox_calls WHERE key_id = ${key} AND at_ms >= ${since}) AS oldest,
    (SELECT COALESCE(SUM(stops), 0) FROM sandbox_calls WHERE key_id = ${key} AND paris_day = ${day} AND state <> 'released') AS stops`;
};

export interface SandboxUsageRow {
  calls: number;
  oldest: number | null;
  stops: number;
}

export const toSandboxUsage = (row: SandboxUsageRow): SandboxUsage => ({ callsInWindow: row.calls, oldestCallMs: row.oldest, stopsToday: row.stops });
