/**
 * node:util parseArgs for the bench scripts, as a command line should behave: `--help` prints the
 * usage and exits 0; an unknown or malformed option prints one line and the usage on stderr and
 * exits 2 (no stack trace).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { existsSync, statSync } from 'node:fs';

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

/**
 * Hand-rolled option loops (options that repeat, or whose meaning depends on another): the option
 * being read and its value, with one error line per malformed value through `fail`.
 */
export class ArgReader {
  private i = -1;
  /** The option being read (the last one next() returned). */
  option = '';

  constructor(
    private readonly argv: string[],
    private readonly fail: (msg: string) => never,
  ) {}

  /** The next option, or undefined at the end. */
  next(): string | undefined {
    this.i++;
    this.option = this.argv[this.i] ?? '';
    return this.argv[this.i];
  }

  value(): string {
    const v = this.argv[++this.i];
    if (v === undefined) this.fail(`${this.option} needs a value`);
    return v;
  }

  number(): number {
    const v = Number(this.value());
    if (!Number.isFinite(v) || v < 0) this.fail(`${this.option} needs a number >= 0`);
    return v;
  }

  /** The path of a file that exists (a solver build, an instance file): a usage error names it otherwise. */
  file(): string {
    const v = this.value();
    if (!existsSync(v) || !statSync(v).isFile()) this.fail(`${this.option}: no such file: ${v}`);
    return v;
  }

  /** An integer the solver's u32 options take. */
  integer(): number {
    const v = Number(this.value());
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) this.fail(`${this.option} needs an integer in 0..4294967295`);
    return v;
  }
}
