/** The payment e-mails and the .eml file sender. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../../src/billing/keys.js';
import { newKeyMail, replacementKeyMail, topUpMail } from '../../src/mail/messages.js';
import { createMailSender } from '../../src/mail/sender.js';
import { parseMail } from '../fakes/smtp.js';

const key = generateApiKey('live');
const base = 'https://routes.example.com';

test('messages are plain ASCII with short lines, so the key is never wrapped', () => {
  for (const m of [
    newKeyMail({ to: 'a@example.com', key, stops: 250000, balance: 250000, packId: 'pack_250k', publicBaseUrl: base }),
    topUpMail({
      to: 'a@example.com',
      last4: key.slice(-4),
      stops: 2000,
      balance: 4000,
      packId: 'pack_2k',
      publicBaseUrl: base,
    }),
    replacementKeyMail({ to: 'a@example.com', key, oldLast4: 'abcd', balance: 10, publicBaseUrl: base }),
  ]) {
    assert.match(m.body + m.subject, /^[\x20-\x7e\n]*$/);
    for (const line of m.body.split('\n')) assert.ok(line.length <= 76, line);
  }
});

test('a new-key mail holds the full key; a top-up mail only its last 4 characters and the new balance', () => {
  const created = newKeyMail({
    to: 'a@example.com',
    key,
    stops: 2000,
    balance: 2000,
    packId: 'pack_2k',
    publicBaseUrl: base,
  });
  assert.equal(created.kind, 'new_key');
  assert.ok(created.body.includes(key));
  assert.match(created.body, /2,000 stops/);
  const topUp = topUpMail({
    to: 'a@example.com',
    last4: key.slice(-4),
    stops: 10000,
    balance: 12000,
    packId: 'pack_10k',
    publicBaseUrl: base,
  });
  assert.equal(topUp.kind, 'top_up');
  assert.ok(!topUp.body.includes(key) && !topUp.subject.includes(key));
  assert.doesNotMatch(topUp.body, /svc_live_/);
  assert.ok(topUp.body.includes(key.slice(-4)));
  assert.match(topUp.body, /New balance: 12,000 stops/);
});

test('without SMTP the sender writes a readable-by-owner .eml file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ros-mail-'));
  const logged: unknown[] = [];
  try {
    const sender = createMailSender(
      { smtpUrl: null, mailFrom: 'Routes <no-reply@routes.example.com>', outboxDir: join(dir, 'outbox') },
      { info: (obj) => logged.push(obj), warn: () => {} },
    );
    assert.equal(sender.mode, 'file');
    const sent = await sender.send({ to: 'b@example.com', subject: 'Hello', text: `line one\n  ${key}\n` });
    const files = readdirSync(join(dir, 'outbox'));
    assert.equal(files.length, 1);
    assert.equal(join(dir, 'outbox', files[0]), sent.file);
    assert.equal(statSync(sent.file!).mode & 0o777, 0o600);
    const mail = parseMail(readFileSync(sent.file!, 'utf8'));
    assert.equal(mail.headers.subject, 'Hello');
    assert.match(mail.headers.from, /no-reply@routes\.example\.com/);
    assert.equal(mail.headers.to, 'b@example.com');
    assert.ok(mail.text.includes(`  ${key}\n`));
    assert.equal(logged.length, 1);
    assert.ok(!JSON.stringify(logged).includes(key), 'the body is never logged');
    sender.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an SMTP sender reports an unreachable server as an error', async () => {
  const { closedPort } = await import('../fakes/smtp.js');
  const port = await closedPort();
  const sender = createMailSender(
    { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'a@example.com', outboxDir: '/nonexistent' },
    { info: () => {}, warn: () => {} },
    { smtpTimeoutMs: 1000 },
  );
  assert.equal(sender.mode, 'smtp');
  await assert.rejects(sender.send({ to: 'b@example.com', subject: 's', text: 't' }), /ECONNREFUSED|connect/i);
  sender.close();
});
