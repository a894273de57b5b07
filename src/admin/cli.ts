/**
 * The admin CLI: `npm run --silent admin -- <command>`. Same environment as the
 * server. Output for machines on stdout, messages for people on stderr.
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

export const USAGE = `Usage: npm run --silent admin -- <command>

  keys create --kind test|live [--stops N] [--email E]   print a new key (shown once)
  keys revoke KEY                                        revoke a key
  keys credit KEY N                                      add N stops to a live key
  keys list                                              list keys (last 4 characters only)
  keys resend-email KEY                                  replace a live key (full key or its last 4
                                                         characters): new key, same balance, old key
                                                         revoked, new key e-mailed to the key's address
  payments list                                          list Stripe payments
  outbox list                                            list queued and sent e-mails (no bodies)
  outbox retry                                           send every unsent e-mail now
  db check                                               balance = sum of ledger for every key; nothing
                                                         pending whose instance is gone or past its deadline;
                                                         the instance leases (exit 1 when not clean)
  db recover                                             settle expired instance leases now: give back the
                                                         charges of instances that stopped renewing them
  db backup PATH                                         online backup of the database to PATH
                                                         (SQLite; for PostgreSQL use pg_dump)
  db migrate-to-postgres                                 copy the SQLite database (DATABASE_PATH) into the
                                                         empty PostgreSQL database (DATABASE_URL), verified
`;

export class UsageError extends Error {}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export async function runAdmin(argv: string[], config: Config, io: CliIo): Promise<number> {
  // copies between the two stores: it opens both itself
  if (argv[0] === 'db' && argv[1] === 'migrate-to-postgres') return dbMigrateToPostgres(argv.slice(2), config, io);
  const store: Store = await openStore(config);
  try {
    return await dispatch(argv, store, new Billing(store, { limits: config.sandbox }), io, config);
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

async function dispatch(argv: string[], store: Store, billing: Billing, io: CliIo, config: Config): Promise<number> {
  const [group, command, ...rest] = argv;
  const route = `${group ?? ''} ${command ?? ''}`.trim();
  switch (route) {
    case 'keys create': return keysCreate(rest, billing, io);
    case 'keys revoke': return keysRevoke(rest, store, io);
    case 'keys credit': return keysCredit(rest, store, io);
    case 'keys list': return keysList(rest, store, io);
    case 'keys resend-email': return keysResendEmail(rest, store, io, config);
    case 'payments list': return paymentsList(rest, store, io);
    case 'outbox list': return outboxList(rest, store, io);
    case 'outbox retry': return outboxRetry(rest, store, io, config);
    case 'db check': return dbCheck(rest, store, io);
    case 'db recover': return dbRecover(rest, billing, io);
    case 'db backup': return dbBackup(rest, store, io);
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

async function paymentsList(args: string[], store: Store, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const rows = (await store.listPayments()).map((p) => [
    p.createdAt, p.email, p.packId, String(p.stops), `${(p.amountCents / 100).toFixed(2)} ${p.currency.toUpperCase()}`, p.stripeSessionId,
    `…${p.keyLast4}`, p.createdKey ? 'new key' : 'top-up',
  ]);
  io.out(table(['CREATED', 'EMAIL', 'PACK', 'STOPS', 'AMOUNT', 'SESSION', 'KEY', 'KIND'], rows));
  return 0;
}

async function outboxList(args: string[], store: Store, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const rows = (await store.listMail()).map((m) => [
    String(m.id), m.createdAt, m.kind, m.to, m.subject, String(m.attempts), m.sentAt ?? (m.cancelledAt ? 'cancelled' : '-'),
    m.sentAt || m.cancelledAt ? '-' : m.nextAttemptAt,
    (m.lastError ?? '-').replace(/\s+/g, ' ').slice(0, 60),
  ]);
  io.out(table(['ID', 'CREATED', 'KIND', 'TO', 'SUBJECT', 'ATTEMPTS', 'SENT', 'NEXT ATTEMPT', 'LAST ERROR'], rows));
  return 0;
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

async function dbMigrateToPostgres(args: string[], config: Config, io: CliIo): Promise<number> {
  try {
    parse(args, {}, 0);
    if (!config.databaseUrl) throw new UsageError('db migrate-to-postgres needs DATABASE_URL (the empty PostgreSQL database to fill) and DATABASE_PATH (the SQLite file to copy).');
  } catch (err) {
    if (err instanceof UsageError) { io.err(`${err.message}\n\n${USAGE}`); return 2; }
    throw err;
  }
  try {
    const summary = await migrateSqliteToPostgres({ sqlitePath: config.databasePath, databaseUrl: config.databaseUrl, log: (line) => io.err(line) });
    io.out(JSON.stringify(summary));
    io.err(`Copied ${summary.tables.reduce((s, t) => s + t.rows, 0)} rows in ${summary.tables.length} tables; ${summary.keysVerified} key balances equal their ledger. Set DATABASE_URL on every instance and restart them.`);
    return 0;
  } catch (err) {
    io.err(`db migrate-to-postgres: ${(err as Error).message}`);
    return 1;
  }
}
