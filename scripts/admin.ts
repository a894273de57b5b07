import { ConfigError, loadConfig } from '../src/config.js';
import { runAdmin } from '../src/admin/cli.js';

try {
  const code = await runAdmin(process.argv.slice(2), loadConfig(), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exitCode = err instanceof ConfigError ? 78 : 1;
}
