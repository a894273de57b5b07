/** The admin CLI as a process runs it (`npm run admin`, `route-optimizer admin`): config from the environment, exit code. */
import { ConfigError, loadConfig } from '../config.js';
import { runAdmin } from './cli.js';

export async function runAdminCommand(argv: string[]): Promise<number> {
  try {
    return await runAdmin(argv, loadConfig(), {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
    return err instanceof ConfigError ? 78 : 1;
  }
}
