/**
 * The admin CLI: `npm run --silent admin -- <command>`. Same environment as the
 * server. Output for machines on stdout, messages for people on stderr.
 * Arguments are checked before the database is opened: a bad one is one line
 * on stderr and exit 2; `--help` after any command prints its usage.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { Billing } from '../billing/billing.js';
import { generateApiKey, hashApiKey, lastFour, parseApiKey } from '../billing/keys.js';
import { replacementKeyMail } from '../mail/messages.js';
import { Outbox } from '../mail/outbox.js';
import { createMailSender, type MailLog } from '../mail/sender.js';
import { openStore } from '../store/open.js';
import { migrateSqliteToPostgres } from '../store/migrate-to-postgres.js';
import type { ApiKeyRecord, Store } from '../store/types.js';

const PROGRAM = 'npm run --silent admin --';

export class UsageError extends Error {}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

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
    name: 'keys create', synopsis: '--kind test|live [--stops N] [--email E]', summary: 'print a new key (shown once)',
    details: [
      'Creates a key and prints it alone on stdout; it is stored only as a hash, so this is the one time it is shown.',
      '--kind test   a free sandboxed key (no --stops)',
      '--kind live   a prepaid key; --stops N (a whole number, 0 or more) is required: the stops it starts with',
      '--email E     the owner\'s address (keys resend-email writes to it)',
      `Example: ${PROGRAM} keys create --kind live --stops 2000 --email ops@example.com`,
    ],
    options: { kind: { type: 'string' }, stops: { type: 'string' }, email: { type: 'string' } },
    check({ values }) {
      if (values.kind === undefined) throw new UsageError('--kind is required: --kind test or --kind live');
      if (values.kind !== 'test' && values.kind !== 'live') throw new UsageError(`--kind must be test or live (got "${String(values.kind)}")`);
      if (values.kind === 'live' && values.stops === undefined) throw new UsageError('--kind live needs --stops N, the stops the key starts with (--stops 0 for an empty key)');
      if (values.kind === 'live') wholeNumber(values.stops as string, '--stops', 0);
      if (values.kind === 'test' && values.stops !== undefined) throw new UsageError('--stops applies to live keys only (test keys are free and sandboxed)');
      const email = values.email as string | undefined;
      if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`--email "${email}" is not an e-mail address`);
    },
    run: ({ values }, { billing, io }) => keysCreate(values, billing, io),
  },
  {
    name: 'keys revoke', synopsis: 'KEY', summary: 'revoke a key', positionals: ['KEY'],
    details: ['Revokes a key (the full key); calls made with it then answer 401. Exit 1 when it was already revoked.'],
    check: ({ positionals }) => fullKey(positionals[0]),
    run: (_p, { store, io }, args) => keysRevoke(args, store, io),
  },
  {
    name: 'keys credit', synopsis: 'KEY N', summary: 'add N stops to a live key', positionals: ['KEY', 'N'],
    details: [
      'Adds N stops (a whole number, at least 1) to a live key\'s balance, with a ledger row (reason admin_credit), and prints the new balance.',
      `Example: ${PROGRAM} keys credit svc_live_… 500`,
    ],
    check({ positionals }) {
      fullKey(positionals[0]);
      wholeNumber(positionals[1], 'N', 1);
    },
    run: ({ positionals }, { store, io }) => keysCredit(positionals, store, io),
  },
  {
    name: 'keys list', synopsis: '[--json]', summary: 'list keys (last 4 characters only)', options: JSON_OPTION,
    details: ['Kind, last 4 characters, e-mail, balance, creation and revocation times of every key. Full keys are never shown.', JSON_DETAIL],
    run: ({ values }, { store, io }) => keysList(values.json === true, store, io),
  },
  {
    name: 'keys resend-email', synopsis: 'KEY', summary: 'replace a lost live key and e-mail the new one', positionals: ['KEY'],
    details: [
      'KEY is the full key or its last 4 characters. Creates a new live key for the same e-mail, moves the balance to it, revokes the',
      'old key and e-mails the new one (SMTP_URL, or a .eml file in OUTBOX_DIR). The e-mail links to PUBLIC_BASE_URL, which must be set.',
    ],
    check(_parsed, config) {
      if (!config.publicBaseUrlConfigured) {
        throw new UsageError(`set PUBLIC_BASE_URL to the address customers reach the service at (e.g. https://routes.example.com); the e-mail links to it (without it: ${config.publicBaseUrl})`);
      }
    },
    run: (_p, { store, io, config }, args) => keysResendEmail(args, store, io, config),
  },
  {
    name: 'payments list', synopsis: '[--json]', summary: 'list Stripe payments', options: JSON_OPTION,
    details: ['Every fulfilled Stripe payment: when, e-mail, pack, stops, amount, session, key (last 4) and whether it created or topped up the key.', JSON_DETAIL],
    run: ({ values }, { store, io }) => paymentsList(values.json === true, store, io),
  },
  {
    name: 'outbox list', synopsis: '[--json]', summary: 'list queued and sent e-mails (no bodies)', options: JSON_OPTION,
    details: ['Every e-mail the service queued, with its attempts, sent time, next attempt and last error. Bodies (which hold keys) are never shown.', JSON_DETAIL],
    run: ({ values }, { store, io }) => outboxList(values.json === true, store, io),
  },
  {
    name: 'outbox retry', synopsis: '', summary: 'send every unsent e-mail now',
    details: ['Sends every unsent e-mail now; prints "sent N, failed M". Exit 1 when one failed (it stays queued).'],
    run: (_p, { store, io, config }, args) => outboxRetry(args, store, io, config),
  },
  {
    name: 'db check', synopsis: '', summary: 'balance = sum of ledger for every key; nothing pending whose instance is gone or past its deadline; the instance leases (exit 1 when not clean)',
    details: ['Prints a JSON report on stdout and what is wrong on stderr. Exit 0 when every balance equals its ledger and nothing stale is pending.'],
    run: (_p, { store, io }, args) => dbCheck(args, store, io),
  },
  {
    name: 'db recover', synopsis: '', summary: 'settle expired instance leases now: give back the charges of instances that stopped renewing them',
    details: ['Refunds every pending charge whose call can no longer complete, as the running service does periodically; prints a JSON summary.'],
    run: (_p, { billing, io }, args) => dbRecover(args, billing, io),
  },
  {
    name: 'db backup', synopsis: 'PATH', summary: 'online backup of the database to PATH (SQLite; for PostgreSQL use pg_dump)', positionals: ['PATH'],
    details: ['Copies the SQLite database to PATH while the service runs (SQLite backup API). For PostgreSQL use pg_dump.'],
    run: (_p, { store, io }, args) => dbBackup(args, store, io),
  },
  {
    name: 'db migrate-to-postgres', synopsis: '', summary: 'copy the SQLite database (DATABASE_PATH) into the empty PostgreSQL database (DATABASE_URL), verified',
    details: ['Stop the service first. Copies every table in one PostgreSQL transaction and verifies every balance; refuses a database that has rows.'],
    check(_parsed, config) {
      if (!config.databaseUrl) throw new UsageError('needs DATABASE_URL (the empty PostgreSQL database to fill) and DATABASE_PATH (the SQLite file to copy)');
    },
    standalone: true,
    run: (_p, { config, io }, args) => dbMigrateToPostgres(args, config, io),
  },
];

const GROUPS = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];

function usageLine(command: Command): string {
  return `${command.name}${command.synopsis ? ` ${command.synopsis}` : ''}`;
}

export const USAGE = [
  `Usage: ${PROGRAM} <command> [--help]`,
  '',
  ...COMMANDS.map((c) => `  ${usageLine(c).padEnd(54)} ${c.summary}`),
  '',
  `"${PROGRAM} <command> --help" shows a command's options and an example.`,
  '',
].join('\n');

export function commandHelp(command: Command): string {
  return [`Usage: ${PROGRAM} ${usageLine(command)}`, '', command.summary, '', ...command.details, ''].join('\n');
}

export async function runAdmin(argv: string[], config: Config, io: CliIo): Promise<number> {
  if (argv.length === 0) {
    io.err(USAGE);
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(USAGE);
    return 0;
  }
  const name = argv.slice(0, 2).join(' ');
  const command = COMMANDS.find((c) => c.name === name);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!command) {
    const group = GROUPS.find((g) => g === argv[0]);
    if (group && (argv.length === 1 || wantsHelp)) {
      const lines = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => `  ${usageLine(c).padEnd(54)} ${c.summary}`);
      (wantsHelp ? io.out : io.err)(`Usage: ${PROGRAM} ${group} <command>\n\n${lines.join('\n')}\n`);
      return wantsHelp ? 0 : 2;
    }
    io.err(group
      ? `admin: unknown command "${name}"; ${group} commands: ${COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.split(' ')[1]).join(', ')} (see ${PROGRAM} --help)`
      : `admin: unknown command "${argv[0]}"; commands start with ${GROUPS.join(', ')} (see ${PROGRAM} --help)`);
    return 2;
  }
  if (wantsHelp) {
    io.out(commandHelp(command));
    return 0;
  }
  const args = argv.slice(2);
  let parsed: Parsed;
  try {
    parsed = parse(args, command.options ?? {}, command.positionals?.length ?? 0, command.positionals);
    command.check?.(parsed, config);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`admin ${command.name}: ${err.message.replace(new RegExp(`^${command.name}: `), '')} (see ${PROGRAM} ${command.name} --help)`);
      return 2;
    }
    throw err;
  }
  if (command.standalone) return command.run(parsed, { config, io } as Deps, args);
  const store: Store = await openStore(config);
  try {
    return await command.run(parsed, { store, billing: new Billing(store, { limits: config.sandbox }), config, io }, args);
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

/**
 * Node's parseArgs with two additions: a negative number is an argument, not an
 * unknown option (`keys credit KEY -5` says what is wrong with -5), and the
 * number of positional arguments is checked.
 */
function parse(args: string[], options: OptionSpec, positionals: number, names: string[] = []): Parsed {
  const numbers = new Map<string, string>();
  const masked = args.map((arg, i) => {
    if (!/^-\d|^-\.\d/.test(arg)) return arg;
    const placeholder = `\u0000number${i}`;
    numbers.set(placeholder, arg);
    return placeholder;
  });
  const unmask = (value: string | boolean | undefined) => (typeof value === 'string' ? numbers.get(value) ?? value : value);
  let parsed;
  try {
    parsed = parseArgs({ args: masked, options, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = /Unknown option '([^']+)'/.exec((err as Error).message)?.[1];
    if (unknown) throw new UsageError(`unknown option ${unknown}${Object.keys(options).length ? `; options: ${Object.keys(options).map((o) => `--${o}`).join(', ')}` : '; this command takes no options'}`);
    const missingValue = /Option '([^']+?)(?: <value>)?' argument missing/.exec((err as Error).message)?.[1];
    if (missingValue) throw new UsageError(`${missingValue.replace(/^-\w, /, '')} needs a value`);
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  const values = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k, unmask(v as string | boolean | undefined)]));
  const given = parsed.positionals.map((p) => unmask(p) as string);
  if (given.length !== positionals) {
    const expected = positionals === 0 ? 'no arguments' : `${positionals} argument${positionals > 1 ? 's' : ''} (${names.join(' ')})`;
    throw new UsageError(given.length < positionals ? `missing ${names.slice(given.length).join(' ')}` : `expected ${expected}, got ${given.length}: ${given.join(' ')}`);
  }
  return { values, positionals: given };
}

function wholeNumber(value: string | undefined, name: string, min: number): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a whole number of at least ${min} (got "${value ?? ''}")`);
  }
  return Number(value);
}

function fullKey(key: string | undefined): void {
  if (!key || !parseApiKey(key)) throw new UsageError(`KEY must be a full API key, svc_test_… or svc_live_… (got "${key ?? ''}")`);
}

async function keysCreate(values: Parsed['values'], billing: Billing, io: CliIo): Promise<number> {
  const kind = values.kind as 'test' | 'live';
  const stops = kind === 'live' ? wholeNumber(values.stops as string, '--stops', 0) : 0;
  const email = values.email as string | undefined;
  const issued = await billing.issueKey(kind, { email: email ?? null, stops, reason: 'admin_credit' });
  io.out(issued.key);
  io.err(`Created ${kind} key …${issued.record.last4}${kind === 'live' ? ` with ${stops} stops` : ''}. It is shown only once.`);
  return 0;
}

async function findKey(store: Store, key: string | undefined): Promise<ApiKeyRecord> {
  if (!key || !parseApiKey(key)) throw new UsageError('KEY must be a full API key (svc_test_… or svc_live_…).');
  const record = await store.findKeyByHash(hashApiKey(key));
  if (!record) throw new UsageError('No such key.');
  return record;
}

async function keysRevoke(args: string[], store: Store, io: CliIo): Promise<number> {
  const { positionals } = parse(args, {}, 1);
  const record = await findKey(store, positionals[0]);
  if (!(await store.revokeKey(hashApiKey(positionals[0]), new Date()))) {
    io.err(`Key …${record.last4} was already revoked.`);
    return 1;
  }
  io.err(`Revoked key …${record.last4}.`);
  return 0;
}

async function keysCredit(positionals: string[], store: Store, io: CliIo): Promise<number> {
  const record = await findKey(store, positionals[0]);
  const stops = wholeNumber(positionals[1], 'N', 1);
  if (record.kind !== 'live') throw new UsageError('only live keys hold a balance: this is a test key');
  const balance = await store.credit(record.id, stops, 'admin_credit', null, new Date());
  io.out(String(balance));
  io.err(`Credited ${stops} stops to key …${record.last4}; balance ${balance}.`);
  return 0;
}

/** A table for people, or with --json one JSON array for machines. */
function listing(io: CliIo, json: boolean, header: string[], rows: Array<Record<string, unknown>>, cells: (row: Record<string, unknown>) => string[]): number {
  if (json) io.out(JSON.stringify(rows));
  else io.out(table(header, rows.map(cells)));
  return 0;
}

async function keysList(json: boolean, store: Store, io: CliIo): Promise<number> {
  const keys = (await store.listKeys()).map((k) => ({
    id: k.id, kind: k.kind, last4: k.last4, email: k.email, balance: k.kind === 'live' ? k.balance : null, createdAt: k.createdAt, revokedAt: k.revokedAt,
  }));
  return listing(io, json, ['KIND', 'KEY', 'EMAIL', 'BALANCE', 'CREATED', 'REVOKED'], keys, (k) => [
    String(k.kind), `…${String(k.last4)}`, (k.email as string | null) ?? '-', k.balance === null ? '-' : String(k.balance), String(k.createdAt), (k.revokedAt as string | null) ?? '-',
  ]);
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** The outbox as the CLI uses it: one pass, messages logged to stderr, no timer. */
function cliOutbox(store: Store, io: CliIo, config: Config): Outbox {
  const log: MailLog = {
    info: (obj, msg) => { if ('file' in obj) io.err(msg); },
    warn: (obj, msg) => io.err(`${msg}: ${String((obj as { error?: string }).error ?? '')}`),
  };
  return new Outbox(store, createMailSender(config.mail, log), log);
}

async function keysResendEmail(args: string[], store: Store, io: CliIo, config: Config): Promise<number> {
  const { positionals } = parse(args, {}, 1);
  const given = positionals[0];
  let record: ApiKeyRecord;
  if (parseApiKey(given)) {
    record = await findKey(store, given);
  } else {
    const last4 = given.replace(/^(…|\.\.\.)/, '');
    if (!/^[A-Za-z0-9_-]{4}$/.test(last4)) throw new UsageError('KEY must be a full API key or its last 4 characters.');
    const matches = (await store.findKeyByLast4(last4)).filter((k) => k.kind === 'live' && !k.revokedAt);
    if (matches.length === 0) throw new UsageError(`No active live key ends in ${last4}.`);
    if (matches.length > 1) throw new UsageError(`${matches.length} active live keys end in ${last4}: give the full key.`);
    record = matches[0];
  }
  if (record.kind !== 'live') throw new UsageError('Only live keys are issued by e-mail.');
  if (record.revokedAt) throw new UsageError(`Key …${record.last4} is revoked.`);
  if (!record.email) throw new UsageError(`Key …${record.last4} has no e-mail address.`);
  const key = generateApiKey('live');
  const outcome = await store.replaceKey({
    oldKeyId: record.id,
    newKey: { keyHash: hashApiKey(key), last4: lastFour(key) },
    composeMail: ({ oldKey, balance }) => replacementKeyMail({ to: oldKey.email!, key, oldLast4: oldKey.last4, balance, publicBaseUrl: config.publicBaseUrl }),
    now: new Date(),
  });
  io.err(`Revoked key …${outcome.oldKey.last4}; new key …${outcome.newKey.last4} holds ${outcome.moved} stops.`);
  const outbox = cliOutbox(store, io, config);
  try {
    await outbox.kick();
  } finally {
    await outbox.close();
  }
  const sent = (await store.listMail()).find((m) => m.id === outcome.outboxId);
  if (sent?.sentAt) {
    io.err(`E-mailed the new key to ${outcome.newKey.email}.`);
    return 0;
  }
  io.err(`The e-mail to ${outcome.newKey.email} is not sent yet (${sent?.lastError ?? 'unknown error'}); it stays in the outbox and the server retries it.`);
  return 1;
}

async function paymentsList(json: boolean, store: Store, io: CliIo): Promise<number> {
  const payments = (await store.listPayments()).map((p) => ({
    createdAt: p.createdAt, email: p.email, packId: p.packId, stops: p.stops, amountCents: p.amountCents, currency: p.currency,
    stripeSessionId: p.stripeSessionId, stripeEventId: p.stripeEventId, keyLast4: p.keyLast4, createdKey: p.createdKey,
  }));
  return listing(io, json, ['CREATED', 'EMAIL', 'PACK', 'STOPS', 'AMOUNT', 'SESSION', 'KEY', 'KIND'], payments, (p) => [
    String(p.createdAt), String(p.email), String(p.packId), String(p.stops), `${(Number(p.amountCents) / 100).toFixed(2)} ${String(p.currency).toUpperCase()}`,
    String(p.stripeSessionId), `…${String(p.keyLast4)}`, p.createdKey ? 'new key' : 'top-up',
  ]);
}

async function outboxList(json: boolean, store: Store, io: CliIo): Promise<number> {
  // never the body: an unsent message holds a full key
  const messages = (await store.listMail()).map((m) => ({
    id: m.id, createdAt: m.createdAt, kind: m.kind, to: m.to, subject: m.subject, attempts: m.attempts,
    sentAt: m.sentAt, cancelledAt: m.cancelledAt, nextAttemptAt: m.sentAt || m.cancelledAt ? null : m.nextAttemptAt, lastError: m.lastError,
  }));
  return listing(io, json, ['ID', 'CREATED', 'KIND', 'TO', 'SUBJECT', 'ATTEMPTS', 'SENT', 'NEXT ATTEMPT', 'LAST ERROR'], messages, (m) => [
    String(m.id), String(m.createdAt), String(m.kind), String(m.to), String(m.subject), String(m.attempts),
    (m.sentAt as string | null) ?? (m.cancelledAt ? 'cancelled' : '-'), (m.nextAttemptAt as string | null) ?? '-',
    ((m.lastError as string | null) ?? '-').replace(/\s+/g, ' ').slice(0, 60),
  ]);
}

async function outboxRetry(args: string[], store: Store, io: CliIo, config: Config): Promise<number> {
  parse(args, {}, 0);
  const outbox = cliOutbox(store, io, config);
  try {
    const report = await outbox.retryAll();
    io.out(`sent ${report.sent}, failed ${report.failed}`);
    return report.failed > 0 ? 1 : 0;
  } finally {
    await outbox.close();
  }
}

async function dbCheck(args: string[], store: Store, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const report = await store.checkIntegrity(new Date());
  io.out(JSON.stringify(report));
  if (report.leases.length > 0) {
    io.err(table(['INSTANCE', 'STATE', 'HOST', 'PID', 'PORT', 'STARTED', 'LAST HEARTBEAT', 'PENDING DEBITS', 'STOPS', 'SANDBOX', 'CLAIMS'],
      report.leases.map((l) => [l.instanceId, l.state, l.host, String(l.pid), String(l.port), l.startedAt, l.heartbeatAt,
        String(l.pendingDebits), String(l.pendingStops), String(l.sandboxReservations), String(l.idempotencyClaims)])));
  }
  for (const m of report.mismatches) io.err(`key ${m.keyId}: balance ${m.balance} but its ledger sums to ${m.ledgerSum}`);
  for (const l of report.leases) {
    const held = l.pendingDebits + l.sandboxReservations + l.idempotencyClaims;
    if (l.state === 'live' || held === 0) continue;
    io.err(`instance ${l.instanceId} (${l.host} pid ${l.pid} port ${l.port}) is ${l.state === 'expired' ? `gone: no heartbeat since ${l.heartbeatAt}` : l.state}`
      + ` and still holds ${l.pendingDebits} debit(s) of ${l.pendingStops} stops, ${l.sandboxReservations} sandbox reservation(s), ${l.idempotencyClaims} Idempotency-Key claim(s)`
      + ': a running instance gives them back within one heartbeat, or run "db recover"');
  }
  if (report.expiredPendingDebits > 0) io.err(`${report.expiredPendingDebits} debit(s) pending whose instance is gone or past their deadline (run "db recover" or start the service)`);
  if (report.expiredSandboxReservations > 0) io.err(`${report.expiredSandboxReservations} sandbox reservation(s) pending whose instance is gone or past their deadline`);
  const live = report.leases.filter((l) => l.state === 'live').length;
  io.err(report.ok ? `OK: ${report.keysChecked} keys, every balance equals its ledger, nothing stale pending; ${live} live instance(s).` : 'FAILED');
  return report.ok ? 0 : 1;
}

async function dbRecover(args: string[], billing: Billing, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const report = await billing.recoverExpiredCharges('admin');
  io.out(JSON.stringify({
    refunded: report.refunded.length, releasedSandbox: report.releasedSandbox, releasedIdempotencyClaims: report.releasedIdempotencyClaims,
    settledLeases: report.settledLeases.length,
  }));
  for (const l of report.settledLeases) io.err(`settled the lease of instance ${l.instanceId} (${l.host} pid ${l.pid} port ${l.port}; last heartbeat ${l.heartbeatAt})`);
  for (const r of report.refunded) io.err(`refunded ${r.stops} stops to key ${r.keyId} (request ${r.requestId ?? '-'}, instance ${r.owner})`);
  return 0;
}

async function dbBackup(args: string[], store: Store, io: CliIo): Promise<number> {
  const { positionals } = parse(args, {}, 1);
  const destination = positionals[0];
  await store.backup(destination);
  io.err(`Backed up the database to ${destination}.`);
  return 0;
}

async function dbMigrateToPostgres(_args: string[], config: Config, io: CliIo): Promise<number> {
  try {
    const summary = await migrateSqliteToPostgres({ sqlitePath: config.databasePath, databaseUrl: config.databaseUrl!, log: (line) => io.err(line) });
    io.out(JSON.stringify(summary));
    io.err(`Copied ${summary.tables.reduce((s, t) => s + t.rows, 0)} rows in ${summary.tables.length} tables; ${summary.keysVerified} key balances equal their ledger. Set DATABASE_URL on every instance and restart them.`);
    return 0;
  } catch (err) {
    io.err(`db migrate-to-postgres: ${(err as Error).message}`);
    return 1;
  }
}
