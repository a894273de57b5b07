/**
 * node:util parseArgs for the bench scripts, as a command line should behave: `--help` prints the
 * usage and exits 0; an unknown or malformed option prints one line and the usage on stderr and
 * exits 2 (no stack trace).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export function parseCliArgs<T extends NonNullable<ParseArgsConfig['options']>>(options: T, usage: string) {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    process.exit(2);
  }
}
