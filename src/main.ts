/** Reads config → opens the store → starts the app → graceful shutdown on SIGTERM/SIGINT. */
import { loadConfig, ConfigError } from './config.js';
import { createLogger } from './logger.js';
import { buildServices } from './services.js';
import { createApp } from './app.js';
import { createHttpServer } from './http/server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const services = await buildServices(config, logger);
  const app = createApp({ config, logger, ...services });
  // slow clients: HEADERS_TIMEOUT_MS for the headers, BODY_TIMEOUT_MS for a body (see http/server.ts)
  const server = createHttpServer(app.callback(), config.limits);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const database = config.databaseUrl ? `postgres ${new URL(config.databaseUrl).host}${new URL(config.databaseUrl).pathname}` : `sqlite ${config.databasePath}`;
  logger.info({ url: `http://${shownHost}:${port}`, database, instance: config.optimize.instanceId }, `listening on http://${shownHost}:${port}`);

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
    server.close(async () => {
      clearInterval(closeIdle);
      await services.close();
      logger.info('stopped');
      process.exit(0);
    });
    // keep-alive connections go as soon as their in-flight request has been answered
    server.closeIdleConnections();
    setTimeout(() => { logger.error('in-flight requests did not finish in time; exiting'); process.exit(1); }, 30_000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
