/**
 * GET /metrics on its own listener (METRICS_PORT on METRICS_HOST, 127.0.0.1 by default), apart from
 * the public API port, so that a reverse proxy in front of the API never exposes it. When
 * METRICS_TOKEN is set it is required here too. Anything else answers 404 (405 for another method).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Metrics } from '../metrics.js';
import { hasMetricsToken } from './metrics.js';

export interface MetricsListenerOptions {
  port: number;
  host: string;
  token: string | null;
}

function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify({ error, message }));
}

export function metricsServer(metrics: Metrics, token: string | null): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return sendError(res, 404, 'not_found', 'This listener serves GET /metrics only.');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, 405, 'method_not_allowed', 'Use GET /metrics.', { Allow: 'GET, HEAD' });
    if (token !== null && !hasMetricsToken(req.headers.authorization, token)) {
      return sendError(res, 401, 'unauthorized', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".', {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    metrics.registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => sendError(res, 500, 'internal_error', 'Collecting the metrics failed.'),
    );
  });
}

/** Starts the metrics listener; rejects with the listen error (EADDRINUSE …). */
export async function startMetricsServer(metrics: Metrics, o: MetricsListenerOptions): Promise<Server> {
  const server = metricsServer(metrics, o.token);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
