import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Structured JSON logs on stdout. Keys, Authorization headers and bodies are never logged. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'route-optimization-service' },
    redact: { paths: ['req.headers.authorization', 'authorization', 'apiKey', 'key'], censor: '[redacted]' },
  });
}
export type { Logger };
