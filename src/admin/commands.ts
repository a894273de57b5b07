/** The admin CLI's commands (src/admin/cli.ts parses the arguments and picks one). */
import type { Config } from '../config.js';
import type { Billing } from '../billing/billing.js';
import { hashApiKey, newKeyMaterial, parseApiKey } from '../billing/keys.js';
import { replacementKeyMail } from '../mail/messages.js';
import { Outbox } from '../mail/outbox.js';
import { createMailSender, type MailLog } from '../mail/sender.js';
import { migrateSqliteToPostgres } from '../store/migrate-to-postgres.js';
import type { ApiKeyRecord, Store } from '../store/types.js';
import { parse, UsageError, type CliIo, type Parsed } from './io.js';

export function wholeNumber(value: string | undefined, name: string, min: number): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a whole number of at least ${min} (got "${value ?? ''}")`);
  }
  return Number(value);
}

export function fullKey(key: string | undefined): void {
  if (!key || !parseApiKey(key))
    throw new UsageError(`KEY must be a full API key, svc_test_… or svc_live_… (got "${key ?? ''}")`);
}

export async function keysCreate(values: Parsed['values'], billing: Billing, io: CliIo): Promise<number> {
  const kind = values.kind as 'test' | 'live';
  const stops = kind === 'live' ? wholeNumber(values.stops as string, '--stops', 0) : 0;
  const email = values.email as string | undefined;
  const issued = await billing.issueKey(kind, { email: email ?? null, stops, reason: 'admin_credit' });
  io.out(issued.key);
  io.err(
    `Created ${kind} key …${issued.record.last4}${kind === 'live' ? ` with ${stops} stops` : ''}. It is shown only once.`,
  );
  return 0;
}

export async function findKey(store: Store, key: string | undefined): Promise<ApiKeyRecord> {
  if (!key || !parseApiKey(key)) throw new UsageError('KEY must be a full API key (svc_test_… or svc_live_…).');
  const record = await store.findKeyByHash(hashApiKey(key));
  if (!record) throw new UsageError('No such key.');
  return record;
}

export async function keysRevoke(args: string[], store: Store, io: CliIo): Promise<number> {
  const { positionals } = parse(args, {}, 1);
  const record = await findKey(store, positionals[0]);
  if (!(await store.revokeKey(hashApiKey(positionals[0]), new Date()))) {
    io.err(`Key …${record.last4} was already revoked.`);
    return 1;
  }
  io.err(`Revoked key …${record.last4}.`);
  return 0;
}

export async function keysCredit(positionals: string[], store: Store, io: CliIo): Promise<number> {
  const record = await findKey(store, positionals[0]);
  const stops = wholeNumber(positionals[1], 'N', 1);
  if (record.kind !== 'live') throw new UsageError('only live keys hold a balance: this is a test key');
  const balance = await store.credit(record.id, stops, 'admin_credit', null, new Date());
  io.out(String(balance));
  io.err(`Credited ${stops} stops to key …${record.last4}; balance ${balance}.`);
  return 0;
}

/** A table for people, or with --json one JSON array for machines. */
export function listing(
  io: CliIo,
  json: boolean,
  header: string[],
  rows: Array<Record<string, unknown>>,
  cells: (row: Record<string, unknown>) => string[],
): number {
  if (json) io.out(JSON.stringify(rows));
  else io.out(table(header, rows.map(cells)));
  return 0;
}

export async function keysList(json: boolean, store: Store, io: CliIo): Promise<number> {
  const keys = (await store.listKeys()).map((k) => ({
    id: k.id,
    kind: k.kind,
    last4: k.last4,
    email: k.email,
    balance: k.kind === 'live' ? k.balance : null,
    createdAt: k.createdAt,
    revokedAt: k.revokedAt,
  }));
  return listing(io, json, ['KIND', 'KEY', 'EMAIL', 'BALANCE', 'CREATED', 'REVOKED'], keys, (k) => [
    String(k.kind),
    `…${String(k.last4)}`,
    (k.email as string | null) ?? '-',
    k.balance === null ? '-' : String(k.balance),
    String(k.createdAt),
    (k.revokedAt as string | null) ?? '-',
  ]);
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The outbox as the CLI uses it: one pass, messages logged to stderr, no timer. */
export function cliOutbox(store: Store, io: CliIo, config: Config): Outbox {
  const log: MailLog = {
    info: (obj, msg) => {
      if ('file' in obj) io.err(msg);
    },
    warn: (obj, msg) => io.err(`${msg}: ${String((obj as { error?: string }).error ?? '')}`),
  };
  return new Outbox(store, createMailSender(config.mail, log), log);
}

export async function keysResendEmail(args: string[], store: Store, io: CliIo, config: Config): Promise<number> {
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
    if (matches.length > 1)
      throw new UsageError(`${matches.length} active live keys end in ${last4}: give the full key.`);
    record = matches[0];
  }
  if (record.kind !== 'live') throw new UsageError('Only live keys are issued by e-mail.');
  if (record.revokedAt) throw new UsageError(`Key …${record.last4} is revoked.`);
  if (!record.email) throw new UsageError(`Key …${record.last4} has no e-mail address.`);
  const { key, keyHash, last4 } = newKeyMaterial('live');
  const outcome = await store.replaceKey({
    oldKeyId: record.id,
    newKey: { keyHash, last4 },
    composeMail: ({ oldKey, balance }) =>
      replacementKeyMail({
        to: oldKey.email!,
        key,
        oldLast4: oldKey.last4,
        balance,
        publicBaseUrl: config.publicBaseUrl,
      }),
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
  io.err(
    `The e-mail to ${outcome.newKey.email} is not sent yet (${sent?.lastError ?? 'unknown error'}); it stays in the outbox and the server retries it.`,
  );
  return 1;
}

export async function paymentsList(json: boolean, store: Store, io: CliIo): Promise<number> {
  const payments = (await store.listPayments()).map((p) => ({
    createdAt: p.createdAt,
    email: p.email,
    packId: p.packId,
    stops: p.stops,
    amountCents: p.amountCents,
    currency: p.currency,
    stripeSessionId: p.stripeSessionId,
    stripeEventId: p.stripeEventId,
    keyLast4: p.keyLast4,
    createdKey: p.createdKey,
  }));
  return listing(io, json, ['CREATED', 'EMAIL', 'PACK', 'STOPS', 'AMOUNT', 'SESSION', 'KEY', 'KIND'], payments, (p) => [
    String(p.createdAt),
    String(p.email),
    String(p.packId),
    String(p.stops),
    `${(Number(p.amountCents) / 100).toFixed(2)} ${String(p.currency).toUpperCase()}`,
    String(p.stripeSessionId),
    `…${String(p.keyLast4)}`,
    p.createdKey ? 'new key' : 'top-up',
  ]);
}

export async function outboxList(json: boolean, store: Store, io: CliIo): Promise<number> {
  // never the body: an unsent message holds a full key
  const messages = (await store.listMail()).map((m) => ({
    id: m.id,
    createdAt: m.createdAt,
    kind: m.kind,
    to: m.to,
    subject: m.subject,
    attempts: m.attempts,
    sentAt: m.sentAt,
    cancelledAt: m.cancelledAt,
    nextAttemptAt: m.sentAt || m.cancelledAt ? null : m.nextAttemptAt,
    lastError: m.lastError,
  }));
  return listing(
    io,
    json,
    ['ID', 'CREATED', 'KIND', 'TO', 'SUBJECT', 'ATTEMPTS', 'SENT', 'NEXT ATTEMPT', 'LAST ERROR'],
    messages,
    (m) => [
      String(m.id),
      String(m.createdAt),
      String(m.kind),
      String(m.to),
      String(m.subject),
      String(m.attempts),
      (m.sentAt as string | null) ?? (m.cancelledAt ? 'cancelled' : '-'),
      (m.nextAttemptAt as string | null) ?? '-',
      ((m.lastError as string | null) ?? '-').replace(/\s+/g, ' ').slice(0, 60),
    ],
  );
}

export async function outboxRetry(args: string[], store: Store, io: CliIo, config: Config): Promise<number> {
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

export async function dbCheck(args: string[], store: Store, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const report = await store.checkIntegrity(new Date());
  io.out(JSON.stringify(report));
  if (report.leases.length > 0) {
    io.err(
      table(
        [
          'INSTANCE',
          'STATE',
          'HOST',
          'PID',
          'PORT',
          'STARTED',
          'LAST HEARTBEAT',
          'PENDING DEBITS',
          'STOPS',
          'SANDBOX',
          'CLAIMS',
        ],
        report.leases.map((l) => [
          l.instanceId,
          l.state,
          l.host,
          String(l.pid),
          String(l.port),
          l.startedAt,
          l.heartbeatAt,
          String(l.pendingDebits),
          String(l.pendingStops),
          String(l.sandboxReservations),
          String(l.idempotencyClaims),
        ]),
      ),
    );
  }
  for (const m of report.mismatches)
    io.err(`key ${m.keyId}: balance ${m.balance} but its ledger sums to ${m.ledgerSum}`);
  for (const l of report.leases) {
    const held = l.pendingDebits + l.sandboxReservations + l.idempotencyClaims;
    if (l.state === 'live' || held === 0) continue;
    io.err(
      `instance ${l.instanceId} (${l.host} pid ${l.pid} port ${l.port}) is ${l.state === 'expired' ? `gone: no heartbeat since ${l.heartbeatAt}` : l.state}` +
        ` and still holds ${l.pendingDebits} debit(s) of ${l.pendingStops} stops, ${l.sandboxReservations} sandbox reservation(s), ${l.idempotencyClaims} Idempotency-Key claim(s)` +
        ': a running instance gives them back within one heartbeat, or run "db recover"',
    );
  }
  if (report.expiredPendingDebits > 0)
    io.err(
      `${report.expiredPendingDebits} debit(s) pending whose instance is gone or past their deadline (run "db recover" or start the service)`,
    );
  if (report.expiredSandboxReservations > 0)
    io.err(
      `${report.expiredSandboxReservations} sandbox reservation(s) pending whose instance is gone or past their deadline`,
    );
  const live = report.leases.filter((l) => l.state === 'live').length;
  io.err(
    report.ok
      ? `OK: ${report.keysChecked} keys, every balance equals its ledger, nothing stale pending; ${live} live instance(s).`
      : 'FAILED',
  );
  return report.ok ? 0 : 1;
}

export async function dbRecover(args: string[], billing: Billing, io: CliIo): Promise<number> {
  parse(args, {}, 0);
  const report = await billing.recoverExpiredCharges('admin');
  io.out(
    JSON.stringify({
      refunded: report.refunded.length,
      releasedSandbox: report.releasedSandbox,
      releasedIdempotencyClaims: report.releasedIdempotencyClaims,
      settledLeases: report.settledLeases.length,
    }),
  );
  for (const l of report.settledLeases)
    io.err(
      `settled the lease of instance ${l.instanceId} (${l.host} pid ${l.pid} port ${l.port}; last heartbeat ${l.heartbeatAt})`,
    );
  for (const r of report.refunded)
    io.err(`refunded ${r.stops} stops to key ${r.keyId} (request ${r.requestId ?? '-'}, instance ${r.owner})`);
  return 0;
}

export async function dbBackup(args: string[], store: Store, io: CliIo): Promise<number> {
  const { positionals } = parse(args, {}, 1);
  const destination = positionals[0];
  await store.backup(destination);
  io.err(`Backed up the database to ${destination}.`);
  return 0;
}

export async function dbMigrateToPostgres(_args: string[], config: Config, io: CliIo): Promise<number> {
  try {
    const summary = await migrateSqliteToPostgres({
      sqlitePath: config.databasePath,
      databaseUrl: config.databaseUrl!,
      log: (line) => io.err(line),
    });
    io.out(JSON.stringify(summary));
    io.err(
      `Copied ${summary.tables.reduce((s, t) => s + t.rows, 0)} rows in ${summary.tables.length} tables; ${summary.keysVerified} key balances equal their ledger. Set DATABASE_URL on every instance and restart them.`,
    );
    return 0;
  } catch (err) {
    io.err(`db migrate-to-postgres: ${(err as Error).message}`);
    return 1;
  }
}
