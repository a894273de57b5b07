/**
 * The start-up steps of main.ts that an operator can get wrong, each failing
 * with one line that names the fix (a StartupError) instead of a stack trace:
 * binding the port (done first, so a busy port changes nothing in the
 * database), then opening the store.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Config } from './config.js';

/** A start-up failure the operator can fix; its message is the whole story, printed as one line. */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

const errorCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

const firstLine = (err: unknown): string => String((err as Error)?.message ?? err).split('\n')[0];

/** Listens on PORT/HOST; resolves with the bound port (PORT=0 picks one), or rejects with a StartupError. */
export function bindPort(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (err: Error): void => reject(describeListenError(err, port, host));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export function describeListenError(err: unknown, port: number, host: string): Error {
  switch (errorCode(err)) {
    case 'EADDRINUSE':
      return new StartupError(`port ${port} is already in use; set PORT to another port`, { cause: err });
    case 'EACCES':
      return new StartupError(
        `port ${port} needs privileges this user does not have; set PORT to a port above 1023 (or put a proxy in front)`,
        { cause: err },
      );
    case 'EADDRNOTAVAIL':
      return new StartupError(
        `HOST ${host} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0 for all`,
        { cause: err },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(
        `HOST ${host} does not resolve to an address; set HOST to an IP address of this machine, or 0.0.0.0 for all`,
        { cause: err },
      );
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

/** The store could not be opened: one line naming the setting to check, or the error itself when it is a bug. */
export function describeStoreError(err: unknown, config: Pick<Config, 'databaseUrl' | 'databasePath'>): Error {
  const code = errorCode(err);
  if (code === undefined) return err instanceof Error ? err : new Error(String(err));
  const message = firstLine(err);
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    const where = `${url.host}${url.pathname}`; // never the password
    if (code === '3D000')
      return new StartupError(
        `PostgreSQL at ${url.host} has no database ${url.pathname.slice(1)}; create it or fix DATABASE_URL (${message})`,
        { cause: err },
      );
    if (code.startsWith('28'))
      return new StartupError(
        `PostgreSQL at ${where} refused the login (${message}); check the user and password in DATABASE_URL`,
        { cause: err },
      );
    if (/^(08|53|57P)/.test(code))
      return new StartupError(
        `cannot reach PostgreSQL at ${where} (${message}); check DATABASE_URL and that the server is up`,
        { cause: err },
      );
    return new StartupError(`cannot open the PostgreSQL database ${where}: ${message}`, { cause: err });
  }
  const path = config.databasePath;
  switch (code) {
    case 'SQLITE_CANTOPEN':
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'ENOENT':
    case 'ENOTDIR':
    case 'EEXIST':
      return new StartupError(
        `cannot open the SQLite database ${path} (${message}); check DATABASE_PATH and that its directory is writable by this user`,
        { cause: err },
      );
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new StartupError(
        `${path} is not a usable SQLite database (${message}); check DATABASE_PATH, or restore a backup`,
        { cause: err },
      );
    case 'SQLITE_READONLY':
      return new StartupError(
        `the SQLite database ${path} is read-only (${message}); make the file and its directory writable by this user`,
        { cause: err },
      );
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new StartupError(
        `the SQLite database ${path} stayed locked by another process during start-up (${message}); retry, or raise DATABASE_BUSY_TIMEOUT_MS`,
        { cause: err },
      );
    case 'SQLITE_FULL':
    case 'ENOSPC':
      return new StartupError(`the disk holding ${path} is full (${message}); free some space`, { cause: err });
    default:
      return new StartupError(`cannot open the SQLite database ${path}: ${message}`, { cause: err });
  }
}

/**
 * The server's request listener while the service starts: requests that
 * arrive between the bind and the end of start-up wait, then go to the app.
 */
export function startingGate(): { listener: RequestListener; open(app: RequestListener): void } {
  let app: RequestListener | null = null;
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  return {
    listener(req, res) {
      if (app) app(req, res);
      else waiting.push([req, res]);
    },
    open(ready) {
      app = ready;
      for (const [req, res] of waiting.splice(0)) ready(req, res);
    },
  };
}
