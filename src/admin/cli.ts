/**
 * The admin CLI: `npm run --silent admin -- <command>`, or `route-optimizer admin <command>`
 * in the single executable; usage and errors name the program that was run. Same environment as the
 * server. Output for machines on stdout, messages for people on stderr.
 * Arguments are checked before the database is opened: a bad one is one line
 * on stderr and exit 2; `--help` after any command prints its usage.
 */
import type { Config } from '../config.js';
import { Billing } from '../billing/billing.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import { parse, UsageError, type CliIo, type OptionSpec, type Parsed } from './io.js';
import {
  dbBackup,
  dbCheck,
  dbMigrateToPostgres,
  dbRecover,
  fullKey,
  keysCreate,
  keysCredit,
  keysList,
  keysResendEmail,
  keysRevoke,
  outboxList,
  outboxRetry,
  paymentsList,
  wholeNumber,
} from './commands.js';

/** How `npm run admin` is typed; the executable passes its own name (`route-optimizer admin`). */
export const NPM_PROGRAM = 'npm run --silent admin --';
/** Stands for the program in the commands' texts. */
const PROGRAM = '$PROGRAM';

export { UsageError, type CliIo };

interface Deps {
  store: Store;
  billing: Billing;
  config: Config;
  io: CliIo;
}

interface Command {
  /** `keys create` */
  name: string;
  /** Arguments after the name, as the usage shows them. */
  synopsis: string;
  summary: string;
  /** More lines for `--help`: what it does, its options, an example. */
  details: string[];
  options?: OptionSpec;
  /** Positional argument names, in order. */
  positionals?: string[];
  /** Checks beyond the option types, before the database is opened. */
  check?(parsed: Parsed, config: Config): void;
  /** Runs with its own connections instead of the shared store. */
  standalone?: true;
  run(parsed: Parsed, deps: Deps, args: string[]): Promise<number>;
}

const JSON_OPTION: OptionSpec = { json: { type: 'boolean' } };
const JSON_DETAIL = '--json  one JSON array of objects on stdout instead of the table';

const COMMANDS: Command[] = [
  {
    name: 'keys create',
    synopsis: '--kind test|live [--stops N] [--email E]',
    summary: 'print a new key (shown once)',
    details: [
      'Creates a key and prints it alone on stdout; it is stored only as a hash, so this is the one time it is shown.',
      '--kind test   a free sandboxed key (no --stops)',
      '--kind live   a prepaid key; --stops N (a whole number, 0 or more) is required: the stops it starts with',
      "--email E     the owner's address (keys resend-email writes to it)",
      `Example: ${PROGRAM} keys create --kind live --stops 2000 --email ops@example.com`,
    ],
    options: { kind: { type: 'string' }, stops: { type: 'string' }, email: { type: 'string' } },
    check({ values }) {
      if (values.kind === undefined) throw new UsageError('--kind is required: --kind test or --kind live');
      if (values.kind !== 'test' && values.kind !== 'live')
        throw new UsageError(`--kind must be test or live (got "${String(values.kind)}")`);
      if (values.kind === 'live' && values.stops === undefined)
        throw new UsageError('--kind live needs --stops N, the stops the key starts with (--stops 0 for an empty key)');
      if (values.kind === 'live') wholeNumber(values.stops as string, '--stops', 0);
      if (values.kind === 'test' && values.stops !== undefined)
        throw new UsageError('--stops applies to live keys only (test keys are free and sandboxed)');
      const email = values.email as string | undefined;
      if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
        throw new UsageError(`--email "${email}" is not an e-mail address`);
    },
    run: ({ values }, { billing, io }) => keysCreate(values, billing, io),
  },
  {
    name: 'keys revoke',
    synopsis: 'KEY',
    summary: 'revoke a key',
    positionals: ['KEY'],
    details: ['Revokes a key (the full key); calls made with it then answer 401. Exit 1 when it was already revoked.'],
    check: ({ positionals }) => fullKey(positionals[0]),
    run: (_p, { store, io }, args) => keysRevoke(args, store, io),
  },
  {
    name: 'keys credit',
    synopsis: 'KEY N',
    summary: 'add N stops to a live key',
    positionals: ['KEY', 'N'],
    details: [
      "Adds N stops (a whole number, at least 1) to a live key's balance, with a ledger row (reason admin_credit), and prints the new balance.",
      `Example: ${PROGRAM} keys credit svc_live_… 500`,
    ],
    check({ positionals }) {
      fullKey(positionals[0]);
      wholeNumber(positionals[1], 'N', 1);
    },
    run: ({ positionals }, { store, io }) => keysCredit(positionals, store, io),
  },
  {
    name: 'keys list',
    synopsis: '[--json]',
    summary: 'list keys (last 4 characters only)',
    options: JSON_OPTION,
    details: [
      'Kind, last 4 characters, e-mail, balance, creation and revocation times of every key. Full keys are never shown.',
      JSON_DETAIL,
    ],
    run: ({ values }, { store, io }) => keysList(values.json === true, store, io),
  },
  {
    name: 'keys resend-email',
    synopsis: 'KEY',
    summary: 'replace a lost live key and e-mail the new one',
    positionals: ['KEY'],
    details: [
      'KEY is the full key or its last 4 characters. Creates a new live key for the same e-mail, moves the balance to it, revokes the',
      'old key and e-mails the new one (SMTP_URL, or a .eml file in OUTBOX_DIR). The e-mail links to PUBLIC_BASE_URL, which must be set.',
    ],
    check(_parsed, config) {
      if (!config.publicBaseUrlConfigured) {
        throw new UsageError(
          `set PUBLIC_BASE_URL to the address customers reach the service at (e.g. https://routes.example.com); the e-mail links to it (without it: ${config.publicBaseUrl})`,
        );
      }
    },
    run: (_p, { store, io, config }, args) => keysResendEmail(args, store, io, config),
  },
  {
    name: 'payments list',
    synopsis: '[--json]',
    summary: 'list Stripe payments',
    options: JSON_OPTION,
    details: [
      'Every fulfilled Stripe payment: when, e-mail, pack, stops, amount, session, key (last 4) and whether it created or topped up the key.',
      JSON_DETAIL,
    ],
    run: ({ values }, { store, io }) => paymentsList(values.json === true, store, io),
  },
  {
    name: 'outbox list',
    synopsis: '[--json]',
    summary: 'list queued and sent e-mails (no bodies)',
    options: JSON_OPTION,
    details: [
      'Every e-mail the service queued, with its attempts, sent time, next attempt and last error. Bodies (which hold keys) are never shown.',
      JSON_DETAIL,
    ],
    run: ({ values }, { store, io }) => outboxList(values.json === true, store, io),
  },
  {
    name: 'outbox retry',
    synopsis: '',
    summary: 'send every unsent e-mail now',
    details: ['Sends every unsent e-mail now; prints "sent N, failed M". Exit 1 when one failed (it stays queued).'],
    run: (_p, { store, io, config }, args) => outboxRetry(args, store, io, config),
  },
  {
    name: 'db check',
    synopsis: '',
    summary:
      'balance = sum of ledger for every key; nothing pending whose instance is gone or past its deadline; the instance leases (exit 1 when not clean)',
    details: [
      'Prints a JSON report on stdout and what is wrong on stderr. Exit 0 when every balance equals its ledger and nothing stale is pending.',
    ],
    run: (_p, { store, io }, args) => dbCheck(args, store, io),
  },
  {
    name: 'db recover',
    synopsis: '',
    summary: 'settle expired instance leases now: give back the charges of instances that stopped renewing them',
    details: [
      'Refunds every pending charge whose call can no longer complete, as the running service does periodically; prints a JSON summary.',
    ],
    run: (_p, { billing, io }, args) => dbRecover(args, billing, io),
  },
  {
    name: 'db backup',
    synopsis: 'PATH',
    summary: 'online backup of the database to PATH (SQLite; for PostgreSQL use pg_dump)',
    positionals: ['PATH'],
    details: [
      'Copies the SQLite database to PATH while the service runs (SQLite backup API). For PostgreSQL use pg_dump.',
    ],
    run: (_p, { store, io }, args) => dbBackup(args, store, io),
  },
  {
    name: 'db migrate-to-postgres',
    synopsis: '',
    summary: 'copy the SQLite database (DATABASE_PATH) into the empty PostgreSQL database (DATABASE_URL), verified',
    details: [
      'Stop the service first. Copies every table in one PostgreSQL transaction and verifies every balance; refuses a database that has rows.',
    ],
    check(_parsed, config) {
      if (!config.databaseUrl)
        throw new UsageError(
          'needs DATABASE_URL (the empty PostgreSQL database to fill) and DATABASE_PATH (the SQLite file to copy)',
        );
    },
    standalone: true,
    run: (_p, { config, io }, args) => dbMigrateToPostgres(args, config, io),
  },
];

const GROUPS = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];

function usageLine(command: Command): string {
  return `${command.name}${command.synopsis ? ` ${command.synopsis}` : ''}`;
}

/** The whole usage, for `program` (how the admin CLI was started). */
export function usage(program = NPM_PROGRAM): string {
  return [
    `Usage: ${program} <command> [--help]`,
    '',
    ...COMMANDS.map((c) => `  ${usageLine(c).padEnd(54)} ${c.summary}`),
    '',
    `"${program} <command> --help" shows a command's options and an example.`,
    '',
  ].join('\n');
}

export const USAGE = usage();

export function commandHelp(command: Command, program = NPM_PROGRAM): string {
  return [`Usage: ${program} ${usageLine(command)}`, '', command.summary, '', ...command.details, '']
    .join('\n')
    .replaceAll(PROGRAM, () => program);
}

/** `program` is how the user started the admin CLI; usage texts and errors name it. */
export async function runAdmin(argv: string[], config: Config, io: CliIo, program = NPM_PROGRAM): Promise<number> {
  if (argv.length === 0) {
    io.err(usage(program));
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(usage(program));
    return 0;
  }
  const name = argv.slice(0, 2).join(' ');
  const command = COMMANDS.find((c) => c.name === name);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!command) {
    const group = GROUPS.find((g) => g === argv[0]);
    if (group && (argv.length === 1 || wantsHelp)) {
      const lines = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map(
        (c) => `  ${usageLine(c).padEnd(54)} ${c.summary}`,
      );
      (wantsHelp ? io.out : io.err)(`Usage: ${program} ${group} <command>\n\n${lines.join('\n')}\n`);
      return wantsHelp ? 0 : 2;
    }
    io.err(
      group
        ? `admin: unknown command "${name}"; ${group} commands: ${COMMANDS.filter((c) => c.name.startsWith(`${group} `))
            .map((c) => c.name.split(' ')[1])
            .join(', ')} (see ${program} --help)`
        : `admin: unknown command "${argv[0]}"; commands start with ${GROUPS.join(', ')} (see ${program} --help)`,
    );
    return 2;
  }
  if (wantsHelp) {
    io.out(commandHelp(command, program));
    return 0;
  }
  const args = argv.slice(2);
  let parsed: Parsed;
  try {
    parsed = parse(args, command.options ?? {}, command.positionals?.length ?? 0, command.positionals);
    command.check?.(parsed, config);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(
        `admin ${command.name}: ${err.message.replace(new RegExp(`^${command.name}: `), '')} (see ${program} ${command.name} --help)`,
      );
      return 2;
    }
    throw err;
  }
  if (command.standalone) return command.run(parsed, { config, io } as Deps, args);
  const store: Store = await openStore(config);
  try {
    return await command.run(
      parsed,
      { store, billing: new Billing(store, { limits: config.sandbox }), config, io },
      args,
    );
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`admin ${command.name}: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    await store.close();
  }
}
