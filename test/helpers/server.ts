/**
 * Starts the real app on 127.0.0.1 port 0 with a fresh SQLite file in a temp
 * dir, the same way main.ts does, and gives tests a small client for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.js';
import { hashApiKey } from '../../src/billing/keys.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createHttpServer } from '../../src/http/server.js';
import { buildServices, type ServiceOverrides, type Services } from '../../src/services.js';
import { buildOpenApiDocument } from '../../src/api/openapi/document.js';
import { OpenApiResponseValidator } from './openapi-validator.js';
import { startingGate } from '../../src/startup.js';

export interface TestServer {
  url: string;
  config: Config;
  services: Services;
  dir: string;
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  createKey(kind: 'test' | 'live', stops?: number): Promise<string>;
  /** A key's balance, the sum of its ledger and the ledger reasons in order. */
  ledgerOf(key: string): Promise<{ balance: number; sum: number; reasons: string[] }>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export function tempDir(prefix = 'ros-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startTestServer(
  options: { env?: Record<string, string>; overrides?: ServiceOverrides; dir?: string } = {},
): Promise<TestServer> {
  const dir = options.dir ?? tempDir();
  // Tests never reach the public geocoder: unless a test points GEOPLATEFORME_URL at a fake (or picks
  // its own GEOCODER), addresses are placed by the embedded gazetteer alone.
  const hermeticGeocoder = options.env?.GEOPLATEFORME_URL === undefined ? { GEOCODER: 'embedded' } : {};
  const config = loadConfig({
    DATABASE_PATH: join(dir, 'service.db'),
    LOG_LEVEL: 'silent',
    ...hermeticGeocoder,
    ...options.env,
  });
  const logger = createLogger(config.logLevel);
  // as main.ts does: bind first, then open the store and take the instance lease; the same timeouts
  // (keep-alive outlives fetch's pooled connections, 4 s idle)
  const gate = startingGate();
  const server: Server = createHttpServer(gate.listener, config.limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  let services: Services;
  try {
    services = await buildServices(config, logger, { port, ...options.overrides });
  } catch (err) {
    server.close();
    throw err;
  }
  gate.open(createApp({ config, logger, ...services }).callback());
  // every /api/ answer a test sees must match the OpenAPI document the server serves
  const contract = new OpenApiResponseValidator(buildOpenApiDocument(config.publicBaseUrl, services.openApiPaths));

  return {
    url,
    config,
    services,
    dir,
    async request(method, path, { key, body, rawBody, headers = {} } = {}) {
      const response = await fetch(url + path, {
        method,
        headers: {
          ...(body !== undefined || rawBody !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...headers,
        },
        body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* keep text */
      }
      const problems =
        method === 'OPTIONS' || method === 'HEAD'
          ? []
          : contract.check({
              method,
              path: path.split('?')[0],
              status: response.status,
              headers: response.headers,
              body: parsed,
            });
      if (problems.length > 0)
        throw new Error(`The answer does not match the OpenAPI document:\n  ${problems.join('\n  ')}`);
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async createKey(kind, stops = 0) {
      return (await services.billing.issueKey(kind, { stops })).key;
    },
    async ledgerOf(key) {
      const record = await services.store.findKeyByHash(hashApiKey(key));
      if (!record) throw new Error('no such key');
      const ledger = await services.store.ledger(record.id);
      return {
        balance: record.balance,
        sum: ledger.reduce((t, e) => t + e.delta, 0),
        reasons: ledger.map((e) => e.reason),
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `run` against a server of its own, closed after it whatever happens. */
export async function withServer(
  options: Parameters<typeof startTestServer>[0],
  run: (s: TestServer) => Promise<void>,
): Promise<void> {
  const server = await startTestServer(options);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** A clock tests can move. */
export function manualClock(start: string | Date) {
  let now = new Date(start).getTime();
  const clock = () => new Date(now);
  clock.set = (value: string | Date) => {
    now = new Date(value).getTime();
  };
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

export { coordinateStops, PARIS_START } from '../../scripts/lib/paris-stops.js';
