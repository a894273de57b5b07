/** Admin CLI: keys resend-email, payments list, outbox list / retry. */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdmin } from '../../src/admin/cli.js';
import { loadConfig, type Config } from '../../src/config.js';
import { generateApiKey, hashApiKey, lastFour } from '../../src/billing/keys.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { closedPort, startFakeSmtp } from '../fakes/smtp.js';

let dir: string;
let config: Config;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ros-cli-payments-'));
  config = loadConfig({
    DATABASE_PATH: join(dir, 'service.db'),
    OUTBOX_DIR: join(dir, 'outbox'),
    PUBLIC_BASE_URL: 'https://routes.example.com',
  });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function admin(argv: string[], cfg: Config = config) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, cfg, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function withStore<T>(fn: (store: SqliteStore) => Promise<T>): Promise<T> {
  const store = new SqliteStore(config.databasePath);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function paidKey(email: string, stops: number) {
  const key = generateApiKey('live');
  await withStore((store) =>
    store.recordPurchase({
      stripeEventId: `evt_${stops}`,
      stripeSessionId: `cs_test_${stops}`,
      email,
      packId: 'pack_2k',
      stops,
      amountCents: 2900,
      currency: 'eur',
      newKey: { keyHash: hashApiKey(key), last4: lastFour(key) },
      composeMail: () => ({ kind: 'new_key', to: email, subject: 'Your key', body: key }),
      now: new Date('2026-03-01T10:00:00Z'),
    }),
  );
  return key;
}

test('keys resend-email: new key with the same balance e-mailed, old key revoked (by last 4 characters)', async () => {
  const old = await paidKey('fleet@example.com', 2000);
  // after --: a key's last 4 characters may begin with '-'
  const res = await admin(['keys', 'resend-email', '--', old.slice(-4)]);
  assert.equal(res.code, 0, res.err);
  const files = readdirSync(join(dir, 'outbox'));
  assert.equal(files.length, 1);
  const fresh = /svc_live_[A-Za-z0-9_-]{43}/.exec(readFileSync(join(dir, 'outbox', files[0]), 'utf8'))?.[0];
  assert.ok(fresh && fresh !== old);
  await withStore(async (store) => {
    const oldRecord = await store.findKeyByHash(hashApiKey(old));
    const newRecord = await store.findKeyByHash(hashApiKey(fresh!));
    assert.ok(oldRecord?.revokedAt);
    assert.equal(oldRecord?.balance, 0);
    assert.equal(newRecord?.balance, 2000);
    assert.equal(newRecord?.email, 'fleet@example.com');
    const mail = (await store.listMail()).find((m) => m.kind === 'replacement_key');
    assert.ok(mail?.sentAt);
    assert.equal(mail?.body, '');
    const stale = (await store.listMail()).find((m) => m.kind === 'new_key');
    assert.ok(stale?.cancelledAt, 'the unsent mail of the old key is cancelled');
    assert.equal(stale?.body, '');
    assert.equal(stale?.sentAt, null);
  });
  // the old key can no longer be replaced
  assert.equal((await admin(['keys', 'resend-email', old])).code, 2);
});

test('keys resend-email with SMTP down: the replacement stands and the mail waits in the outbox; outbox retry sends it', async () => {
  const old = await paidKey('late@example.com', 500);
  const port = await closedPort();
  const smtpConfig = { ...config, mail: { ...config.mail, smtpUrl: `smtp://127.0.0.1:${port}` } };
  const res = await admin(['keys', 'resend-email', old], smtpConfig);
  assert.equal(res.code, 1);
  assert.match(res.err, /stays in the outbox/);
  const listed = await admin(['outbox', 'list']);
  assert.match(listed.out, /replacement_key\s+late@example\.com/);
  assert.ok(!/svc_live_/.test(listed.out), 'no bodies in the listing');

  const smtp = await startFakeSmtp(port);
  try {
    const retry = await admin(['outbox', 'retry'], smtpConfig);
    assert.equal(retry.code, 0, retry.err);
    // the purchase's unsent new_key mail announced the old key: it was cancelled by the replacement
    assert.equal(retry.out, 'sent 1, failed 0');
    assert.equal(smtp.messages.length, 1);
    const replacement = smtp.messages.find((m) => /replacement/i.test(m.headers.subject));
    const fresh = /svc_live_[A-Za-z0-9_-]{43}/.exec(replacement!.text)?.[0];
    const record = await withStore((store) => store.findKeyByHash(hashApiKey(fresh!)));
    assert.equal(record?.balance, 500);
  } finally {
    await smtp.close();
  }
});

test('payments list shows created, e-mail, pack, stops, amount, session and key last 4', async () => {
  const key = await paidKey('buyer@example.com', 2000);
  const res = await admin(['payments', 'list']);
  assert.equal(res.code, 0);
  const [header, row] = res.out.split('\n');
  assert.match(header, /^CREATED\s+EMAIL\s+PACK\s+STOPS\s+AMOUNT\s+SESSION\s+KEY/);
  assert.match(row, /2026-03-01T10:00:00.000Z\s+buyer@example\.com\s+pack_2k\s+2000\s+29\.00 EUR\s+cs_test_2000\s+…/);
  assert.ok(row.includes(key.slice(-4)));
  assert.ok(!row.includes(key));
});

test('keys resend-email refuses keys that are not live, unknown, or ambiguous', async () => {
  assert.equal((await admin(['keys', 'resend-email', 'zzzz'])).code, 2);
  assert.equal((await admin(['keys', 'resend-email'])).code, 2);
});
