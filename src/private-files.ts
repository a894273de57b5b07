/**
 * Files that hold keys or customer data (the SQLite database and its WAL/SHM,
 * backups, outbox e-mails) are readable and writable by the service's user
 * only (0600), whatever the umask: open() applies the umask, fchmod() does not.
 */
import { closeSync, existsSync, fchmodSync, openSync, writeSync } from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;

/** Creates `path` empty if missing, and makes it 0600 (an existing file of ours is tightened too). */
export function ensurePrivateFile(path: string): void {
  const fd = openSync(path, 'a', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch {
    // a file owned by another user: its owner decides; opening it will say whether we may use it
  } finally {
    closeSync(fd);
  }
}

/** Tightens `path` to 0600 if it exists. */
export function tightenIfExists(path: string): void {
  if (existsSync(path)) ensurePrivateFile(path);
}

/** Writes a new file (never overwrites one) that only the service's user can read. */
export function writePrivateFile(path: string, data: Buffer | string): void {
  const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
  } finally {
    closeSync(fd);
  }
}
