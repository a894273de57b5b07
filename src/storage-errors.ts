/** What a storage failure means, for whoever maps it (the HTTP layer, readiness): the store's codes, known without importing the store. */
/**
 * Error codes that mean "the database cannot take this write now" rather than a bug: SQLite's, and the
 * PostgreSQL SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention),
 * and 55P03 (lock_not_available: lock_timeout, like SQLITE_BUSY) and 25006 (read-only transaction: a standby, like SQLITE_READONLY).
 */
const UNAVAILABLE_CODES =
  /^(SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY)|08[0-9A-Z]{3}$|53[0-9A-Z]{3}$|57P[0-9A-Z]{2}$|55P03$|25006$)/;

/** True for store failures that are the storage's condition (busy, locked, disk full, I/O), not the request's fault. */
export function isStorageUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.test(code);
}
