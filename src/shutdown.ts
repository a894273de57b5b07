/**
 * Graceful stop on SIGTERM/SIGINT, the same for `npm start`, `node dist/main.js` and the executable:
 *   1. at once: /readyz answers 503 so that a load balancer stops sending; responses ask clients to
 *      close their connection;
 *   2. the listener stays open for the drain delay (SHUTDOWN_DRAIN_MS) and serves as usual, for the
 *      requests already on their way;
 *   3. then it stops accepting; in-flight requests finish, bounded by the request deadline (past it
 *      plus a second, their connections are closed); idle keep-alive connections are closed;
 *   4. the services close (the instance's lease is released, the store closed) and the process exits 0.
 * A second signal exits at once (status 128 + signal number).
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Logger } from './logger.js';

export interface ShutdownOptions {
  logger: Logger;
  drainMs: number;
  /** In-flight requests get this long after the listener closes (the optimize call deadline). */
  requestDeadlineMs: number;
  /** Closes everything but the HTTP listeners (services, store). */
  close(): Promise<void>;
  exit?(code: number): void;
}

const SIGNAL_STATUS: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export class GracefulShutdown {
  /** True from the first signal on: /readyz answers 503. */
  draining = false;
  private readonly drained: Server[] = [];
  private readonly closedLast: Server[] = [];
  private readonly exit: (code: number) => void;

  constructor(private readonly o: ShutdownOptions) {
    this.exit = o.exit ?? ((code) => process.exit(code));
  }

  /** Wraps the app's request listener: while draining, responses carry `Connection: close`. */
  handler(listener: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      if (this.draining) res.setHeader('Connection', 'close');
      listener(req, res);
    };
  }

  /** A listener whose in-flight requests are waited for (the API). */
  drain(server: Server): void {
    this.drained.push(server);
  }

  /** A listener closed at the very end, so that it answers during the drain (metrics). */
  closeLast(server: Server): void {
    this.closedLast.push(server);
  }

  listen(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): void {
    for (const signal of signals)
      process.on(signal, () => {
        void this.begin(signal);
      });
  }

  async begin(signal: string): Promise<void> {
    const { logger } = this.o;
    if (this.draining) {
      logger.warn({ signal }, 'second signal: exiting now without finishing in-flight requests');
      this.exit(SIGNAL_STATUS[signal] ?? 1);
      return;
    }
    this.draining = true;
    const bound = this.o.requestDeadlineMs + 1_000;
    setTimeout(
      () => {
        logger.error('shutdown did not complete in time; exiting');
        this.exit(1);
      },
      this.o.drainMs + bound + 15_000,
    ).unref();
    logger.info(
      { signal, drainMs: this.o.drainMs },
      'shutting down: /readyz answers 503; still serving during the drain delay',
    );
    await sleep(this.o.drainMs);

    logger.info('shutting down: no new connections, finishing in-flight requests');
    const closed = Promise.all(this.drained.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    const closeIdle = (): void => {
      for (const s of this.drained) s.closeIdleConnections();
    };
    closeIdle();
    const idleTimer = setInterval(closeIdle, 100);
    const finished = await Promise.race([closed.then(() => true), sleep(bound).then(() => false)]);
    if (!finished) {
      logger.warn({ waitedMs: bound }, 'requests still running past the request deadline: closing their connections');
      for (const s of this.drained) s.closeAllConnections();
      await closed;
    }
    clearInterval(idleTimer);
    for (const s of this.closedLast) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    try {
      await this.o.close();
    } catch (err) {
      logger.error({ err }, 'closing the services failed');
      this.exit(1);
      return;
    }
    logger.info('stopped');
    this.exit(0);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
