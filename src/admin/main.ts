/** The admin CLI as a process runs it (`npm run admin`, `route-optimizer admin`): config from the environment, exit code. */
import { ConfigError, loadConfig } from '../config.js';
import { NPM_PROGRAM, runAdmin } from './cli.js';

/**
 * `--debug` anywhere shows the stack of an unexpected failure; otherwise it is one line.
 * `program` is how the user started it (`npm run --silent admin --`, `route-optimizer admin`): usage and errors name it.
 */
export async function runAdminCommand(args: string[], program = NPM_PROGRAM): Promise<number> {
  const debug = args.includes('--debug');
  const argv = args.filter((a) => a !== '--debug');
  try {
    return await runAdmin(
      argv,
      loadConfig(),
      {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
      },
      program,
    );
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 78;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      debug && err instanceof Error
        ? `${err.stack}\n`
        : `admin: ${message.split('\n')[0]} (run again with --debug for details)\n`,
    );
    return 1;
  }
}
