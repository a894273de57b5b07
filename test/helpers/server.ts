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

export interface TestServer {
  url: string;
  config: Config;
  services: Services;
  dir: string;
  request(method: string, path: string, options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse>;
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

export async function startTestServer(options: { env?: Record<string, string>; overrides?: ServiceOverrides; dir?: string } = {}): Promise<TestServer> {
  const dir = options.dir ?? tempDir();
  const config = loadConfig({ DATABASE_PATH: join(dir, 'service.db'), LOG_LEVEL: 'silent', ...options.env });
  const logger = createLogger(config.logLevel);
  const services = await buildServices(config, logger, options.overrides);
  const app = createApp({ config, logger, ...services });
  // as main.ts: the same timeouts; keep-alive outlives fetch's pooled connections (4 s idle)
  const server: Server = createHttpServer(app.callback(), config.limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

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
      try { parsed = text ? JSON.parse(text) : null; } catch { /* keep text */ }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async createKey(kind, stops = 0) {
      return (await services.billing.issueKey(kind, { stops })).key;
    },
    async ledgerOf(key) {
      const record = await services.store.findKeyByHash(hashApiKey(key));
      if (!record) throw new Error('no such key');
      const ledger = await services.store.ledger(record.id);
      return { balance: record.balance, sum: ledger.reduce((t, e) => t + e.delta, 0), reasons: ledger.map((e) => e.reason) };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A clock tests can move. */
export function manualClock(start: string | Date) {
  let now = new Date(start).getTime();
  const clock = () => new Date(now);
  clock.set = (value: string | Date) => { now = new Date(value).getTime(); };
  clock.advance = (ms: number) => { now += ms; };
  return clock;
}

/** Coordinates around Paris for sandbox-sized requests. */
export function coordinateStops(count: number, seed = 1): Array<{ id: string; latitude: number; longitude: number }> {
  let s = seed;
  const rand = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  return Array.from({ length: count }, (_, i) => ({ id: `s${i + 1}`, latitude: 48.80 + rand() * 0.12, longitude: 2.25 + rand() * 0.2 }));
}

export const PARIS_START = { latitude: 48.8566, longitude: 2.3522 };
