import { ConfigError, loadConfig } from '../src/config.js';
import { runAdmin } from '../src/admin/cli.js';

// --debug: show the stack of an unexpected failure (otherwise one line)
const debug = process.argv.includes('--debug');
const argv = process.argv.slice(2).filter((a) => a !== '--debug');
try {
  const code = await runAdmin(argv, loadConfig(), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 78;
  } else {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(debug && err instanceof Error ? `${err.stack}\n` : `admin: ${message.split('\n')[0]} (run again with --debug for details)\n`);
    process.exitCode = 1;
  }
}
