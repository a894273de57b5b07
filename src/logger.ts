import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';
import { stdoutLogOutput, type LogOutput } from './log-output.js';

const BASE = { service: 'route-optimization-service' };
const WARN = 40;

/**
 * Structured JSON logs on stdout. Keys, Authorization headers and bodies are never logged.
 * Logging never takes the service down: see log-output.ts (lines dropped and counted when stdout cannot be written).
 */
export function createLogger(level: LogLevel, output?: LogOutput): Logger {
  const threshold = pino.levels.values[level] ?? Number.POSITIVE_INFINITY;
  const destination = output ?? stdoutLogOutput({ base: BASE, warningsEnabled: () => threshold <= WARN });
  return pino(
    {
      level,
      base: BASE,
      redact: { paths: ['req.headers.authorization', 'authorization', 'apiKey', 'key'], censor: '[redacted]' },
    },
    destination,
  );
}
export type { Logger };
export { stdoutLogStats } from './log-output.js';
