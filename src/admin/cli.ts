/**
 * The admin CLI: `npm run --silent admin -- <command>`. Same environment as the
 * server. Output for machines on stdout, messages for people on stderr.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { Billing } from '../billing/billing.js';
import { hashApiKey, parseApiKey } from '../billing/keys.js';
import { SqliteStore } from '../store/sqlite.js';
import type { ApiKeyRecord, Store } from '../store/types.js';

export const USAGE = `Usage: npm run --silent admin -- <command>

  keys create --kind test|live [--stops N] [--email E]   print a new key (shown once)
  keys revoke KEY                                        revoke a key
  keys credit KEY N                                      add N stops to a live key
  keys list                                              list keys (last 4 characters only)
`;

export class UsageError extends Error {}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export async function runAdmin(argv: string[], config: Config, io: CliIo): Promise<number> {
  const store: Store = new SqliteStore(config.databasePath);
  try {
    return await dispatch(argv, store, new Billing(store, config.sandbox), io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  } finally {
    await store.close();
  }
}

async function dispatch(argv: string[], store: Store, billing: Billing, io: CliIo): Promise<number> {
  const [group, command, ...rest] = argv;
  const route = `${group ?? ''} ${command ?? ''}`.trim();
  switch (route) {
    case 'keys create': return keysCreate(rest, billing, io);
    case 'keys revoke': return keysRevoke(rest, store, io);
    case 'keys credit': return keysCredit(rest, store, io);
    case 'keys list': return keysList(rest, store, io);
    default: throw new UsageError(route === '' ? 'No command given.' : `Unknown command "${route}".`);
  }
}

function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(`Expected ${positionals} argument(s), got ${parsed.positionals.length}.`);
  }
  return parsed;
}

function wholeNumber(value: string | undefined, name: string, min: number): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a whole number of at least ${min} (got "${value ?? ''}").`);
  }
  return Number(value);
}

async function keysCreate(args: string[], billing: Billing, io: CliIo): Promise<number> {
  const { values } = parse(args, { kind: { type: 'string' }, stops: { type: 'string' }, email: { type: 'string' } }, 0);
  const kind = values.kind;
  if (kind !== 'test' && kind !== 'live') throw new UsageError('--kind must be test or live.');
  const stops = values.stops === undefined ? 0 : wholeNumber(values.stops as string, '--stops', 0);
  if (kind === 'test' && stops > 0) throw new UsageError('--stops applies to live keys only (test keys are free and sandboxed).');
  const email = values.email as string | undefined;
  if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`--email "${email}" is not an e-mail address.`);
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

async function keysCredit(args: string[], store: Store, io: CliIo): Promise<number> {
  const { positionals } = parse(args, {}, 2);
  const record = await findKey(store, positionals[0]);
  const stops = wholeNumber(positionals[1], 'N', 1);
  if (record.kind !== 'live') throw new UsageError('Only live keys hold a balance.');
  const balance = await store.credit(record.id, stops, 'admin_credit', null, new Date());
  io.out(String(balance));
  io.err(`Credited ${stops} stops to key …${record.last4}; balance ${balance}.`);
  return 0;
}

async function keysList(args: string[], store: Store, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const rows = (await store.listKeys()).map((k) => [
    k.kind, `…${k.last4}`, k.email ?? '-', k.kind === 'live' ? String(k.balance) : '-', k.createdAt, k.revokedAt ?? '-',
  ]);
  io.out(table(['KIND', 'KEY', 'EMAIL', 'BALANCE', 'CREATED', 'REVOKED'], rows));
  return 0;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
