/** The store contract for outbox, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { after, test } from 'node:test';
import { Outbox } from '../../src/mail/outbox.js';
import { describeContract, freshDb, recordingSender, silent } from './harness.js';

describeContract('outbox', (kind) => {
  test('outbox: one sender per message across instances; lease; sent body blanked', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open(), await db.open()];
    const t = new Date();
    const id = await stores[0].enqueueMail({ kind: 'top_up', to: 'a@example.com', subject: 's', body: 'b' }, null, t);
    const claims = await Promise.all(
      Array.from({ length: 9 }, (_, i) => stores[i % 3].claimMail(id, t, new Date(t.getTime() + 60_000))),
    );
    assert.equal(claims.filter((c) => c !== null).length, 1);
    assert.deepEqual(await stores[1].dueMail(t, 10), []);
    assert.deepEqual(
      await stores[1].dueMail(new Date(t.getTime() + 60_000), 10),
      [id],
      'due again after the lease (the sender died)',
    );
    for (let i = 0; i < 10; i++)
      await stores[0].enqueueMail({ kind: 'top_up', to: `u${i}@example.com`, subject: 's', body: 'secret' }, null, t);
    const senders = stores.map(() => recordingSender());
    const outboxes = stores.map((s, i) => new Outbox(s, senders[i], silent));
    await Promise.all(outboxes.map((o) => o.kick()));
    const sentTo = senders.flatMap((s) => s.sent.map((m) => m.to)).sort();
    assert.deepEqual(
      sentTo,
      Array.from({ length: 10 }, (_, i) => `u${i}@example.com`).sort(),
      'each message sent exactly once',
    );
    const rows = (await stores[2].listMail()).filter((m) => m.id !== id);
    assert.ok(rows.every((m) => m.sentAt && m.body === '' && m.attempts === 1));
    await stores[0].markMailFailed(id, 'x'.repeat(2000), new Date(t.getTime() + 5000));
    const failed = (await stores[0].listMail()).find((m) => m.id === id)!;
    assert.equal(failed.lastError?.length, 1000);
    assert.equal(await stores[0].rescheduleMail(t), 1);
    for (const o of outboxes) await o.close();
  });
});
