/** What the admin CLI's parts share: its output channels, its usage error, the argument parser. */
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/**
 * Node's parseArgs with two additions: a negative number is an argument, not an
 * unknown option (`keys credit KEY -5` says what is wrong with -5), and the
 * number of positional arguments is checked.
 */
export function parse(args: string[], options: OptionSpec, positionals: number, names: string[] = []): Parsed {
  const numbers = new Map<string, string>();
  const masked = args.map((arg, i) => {
    if (!/^-\d|^-\.\d/.test(arg)) return arg;
    const placeholder = `\u0000number${i}`;
    numbers.set(placeholder, arg);
    return placeholder;
  });
  const unmask = (value: string | boolean | undefined) =>
    typeof value === 'string' ? (numbers.get(value) ?? value) : value;
  let parsed;
  try {
    parsed = parseArgs({ args: masked, options, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = /Unknown option '([^']+)'/.exec((err as Error).message)?.[1];
    if (unknown)
      throw new UsageError(
        `unknown option ${unknown}${
          Object.keys(options).length
            ? `; options: ${Object.keys(options)
                .map((o) => `--${o}`)
                .join(', ')}`
            : '; this command takes no options'
        }${positionals > 0 ? `; an argument that begins with "-" (a key's last 4 characters may) goes after "--": -- ${unknown}` : ''}`,
      );
    const missingValue = /Option '([^']+?)(?: <value>)?' argument missing/.exec((err as Error).message)?.[1];
    if (missingValue) throw new UsageError(`${missingValue.replace(/^-\w, /, '')} needs a value`);
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  const values = Object.fromEntries(
    Object.entries(parsed.values).map(([k, v]) => [k, unmask(v as string | boolean | undefined)]),
  );
  const given = parsed.positionals.map((p) => unmask(p) as string);
  if (given.length !== positionals) {
    const expected =
      positionals === 0 ? 'no arguments' : `${positionals} argument${positionals > 1 ? 's' : ''} (${names.join(' ')})`;
    throw new UsageError(
      given.length < positionals
        ? `missing ${names.slice(given.length).join(' ')}`
        : `expected ${expected}, got ${given.length}: ${given.join(' ')}`,
    );
  }
  return { values, positionals: given };
}
