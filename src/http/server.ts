/** The HTTP server around the app, with the timeouts that end stalled clients; main.ts and the tests share it. */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AbuseLimits } from '../config.js';

export function createHttpServer(
  listener: RequestListener,
  limits: Pick<AbuseLimits, 'headersTimeoutMs' | 'bodyTimeoutMs'>,
): Server {
  // timeouts are enforced by a sweep: every second rather than Node's default 30 s, so a stalled client goes soon after its deadline
  const server = createServer({ connectionsCheckingInterval: 1_000 }, listener);
  server.headersTimeout = limits.headersTimeoutMs;
  // a whole request (headers and a body nobody reads, e.g. after a 401) must arrive within both deadlines;
  // the routes that read a body enforce BODY_TIMEOUT_MS themselves, with a 408 answer
  server.requestTimeout = limits.headersTimeoutMs + limits.bodyTimeoutMs;
  // idle keep-alive connections outlive a load balancer's usual 60 s idle timeout
  server.keepAliveTimeout = 65_000;
  return server;
}
