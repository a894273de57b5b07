/**
 * Every environment variable the service reads, validated once at start-up.
 * Nothing else in the code base reads process.env.
 */
import { resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  logLevel: LogLevel;
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
  publicBaseUrl: string;
  sandbox: SandboxLimits;
}

export interface SandboxLimits {
  maxStopsPerCall: number;
  callsPerMinute: number;
  stopsPerDay: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

const PROJECT_ROOT = resolve(new URL('..', import.meta.url).pathname);
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Collects problems instead of stopping at the first, so one message names every bad variable. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  url(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback;
    try {
      const parsed = new URL(value);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
      return value.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be an http(s) URL (got "${value}")`);
      return fallback;
    }
  }
}

export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);
  const port = r.int('PORT', 3000, 0, 65535);
  const host = r.string('HOST', '0.0.0.0');
  const config: Config = {
    port,
    host,
    databasePath: resolve(PROJECT_ROOT, r.string('DATABASE_PATH', 'var/service.db')),
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    publicBaseUrl: r.url('PUBLIC_BASE_URL', `http://localhost:${port}`),
    sandbox: {
      maxStopsPerCall: r.int('SANDBOX_MAX_STOPS_PER_CALL', 10, 2, 200),
      callsPerMinute: r.int('SANDBOX_CALLS_PER_MINUTE', 20, 1, 100000),
      stopsPerDay: r.int('SANDBOX_STOPS_PER_DAY', 200, 2, 10000000),
    },
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}
