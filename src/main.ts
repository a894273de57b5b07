/**
 * Reads config → binds the port → opens the store and takes an instance lease → serves; graceful
 * shutdown on SIGTERM/SIGINT (shutdown.ts). The port is bound first so that a second copy on a busy
 * port stops with one line before it touches the database.
 */
import { loadConfig, ConfigError } from './config.js';
import { createLogger } from './logger.js';
import { buildServices, type Services } from './services.js';
import { createApp } from './app.js';
import { bindPort, describeStoreError, startingGate, StartupError } from './startup.js';
import { startMetricsServer } from './http/metrics-server.js';
import { GracefulShutdown } from './shutdown.js';
import { createHttpServer } from './http/server.js';
import { warmUpPlans } from './api/plans/warm-up.js';
import { SolverError } from './solver/errors.js';

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
  let services: Services | undefined;
  const shutdown = new GracefulShutdown({
    logger,
    drainMs: config.shutdownDrainMs,
    requestDeadlineMs: config.optimize.requestDeadlineMs,
    close: async () => {
      if (!services) return;
      await services.releaseLease();
      await services.close();
    },
  });
  const gate = startingGate();
  // slow clients: HEADERS_TIMEOUT_MS for the headers, BODY_TIMEOUT_MS for a body (see http/server.ts)
  const server = createHttpServer(shutdown.handler(gate.listener), config.limits);

  const port = await bindPort(server, config.port, config.host);
  shutdown.drain(server);
  shutdown.listen();
  for (const warning of config.warnings) logger.warn(warning);
  services = await buildServices(config, logger, { port }).catch((err: unknown) => {
    throw describeStoreError(err, config);
  });
  const app = createApp({ config, logger, ...services, shuttingDown: () => shutdown.draining });
  // before the first request: the first big plans would otherwise run their main-thread path cold
  logger.debug({ ms: Math.round(await warmUpPlans()) }, 'plans path warmed up');
  gate.open(app.callback());
  // after the port serves: a plan arriving meanwhile waits at most this one short solve for a worker
  services
    .warmUpSolver()
    .then((ms) => logger.debug({ ms: Math.round(ms) }, 'solver warmed up'))
    .catch((err: unknown) => {
      if (!(err instanceof SolverError && err.code === 'closed')) logger.warn({ err }, 'solver warm-up failed');
    });
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const database = config.databaseUrl
    ? `postgres ${new URL(config.databaseUrl).host}${new URL(config.databaseUrl).pathname}`
    : `sqlite ${config.databasePath}`;
  logger.info(
    { url: `http://${shownHost}:${port}`, database, instance: services.lease.instanceId, node: process.version },
    `listening on http://${shownHost}:${port}`,
  );

  if (config.metrics.port !== null) {
    const metricsPort = config.metrics.port;
    const metricsHost = config.metrics.host;
    const metricsServer = await startMetricsServer(services.metrics, {
      port: metricsPort,
      host: metricsHost,
      token: config.metrics.token,
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') throw err;
      console.error(
        `metrics port ${metricsPort} on ${metricsHost} is ${err.code === 'EADDRINUSE' ? 'already in use' : 'not allowed'}; set METRICS_PORT to another port`,
      );
      process.exit(1);
    });
    shutdown.closeLast(metricsServer);
    logger.info({ url: `http://${metricsHost}:${metricsPort}/metrics` }, 'metrics listener ready');
  } else if (config.metrics.token === null) {
    logger.info(
      'metrics off: set METRICS_PORT (a loopback listener) or METRICS_TOKEN (GET /metrics on this port) to serve them',
    );
  }
}

main().catch((err) => {
  if (err instanceof StartupError) process.stderr.write(`${err.message}\n`);
  else console.error(err);
  process.exit(1);
});
