/** The log output: a broken stdout drops and counts lines, says so once when it works again, and never blocks exit. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { LogOutput, type FdWriter } from '../../src/log-output.js';

/** A file descriptor that fails with `failWith` while set, and records what it accepted. */
function fakeFd() {
  const state = {
    failWith: null as string | null,
    written: '',
    syncCalls: 0,
    busyOnce: false,
    /** Bytes that still fit before the output fails with ENOSPC (a disk that fills up in the middle of a write). */
    room: Infinity,
  };
  const fail = (code: string) => Object.assign(new Error(code), { code });
  const writer: FdWriter = {
    write(_fd, data, callback) {
      setImmediate(() => {
        if (state.busyOnce) {
          state.busyOnce = false;
          return callback(fail('EAGAIN'), 0);
        }
        if (state.failWith) return callback(fail(state.failWith), 0);
        if (state.room === 0) {
          state.failWith = 'ENOSPC';
          return callback(fail('ENOSPC'), 0);
        }
        const accepted = Math.min(data.length, state.room);
        state.room -= accepted;
        state.written += data.subarray(0, accepted).toString('utf8');
        callback(null, accepted);
      });
    },
    writeSync(_fd, data) {
      state.syncCalls++;
      if (state.failWith) throw fail(state.failWith);
      state.written += data.toString('utf8');
      return data.length;
    },
  };
  return { state, writer };
}

const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));
/** Waits until `done` holds (a loaded machine may delay the output's timers and callbacks): at most 10 s. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await settle(10);
  assert.ok(done(), 'the output got there');
}
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('lines are written in order; EAGAIN is waited out without losing a line', async () => {
  const { state, writer } = fakeFd();
  const output = new LogOutput({ writer, retryMs: 20 });
  state.busyOnce = true;
  for (let i = 0; i < 5; i++) output.write(`${JSON.stringify({ n: i })}\n`);
  // the retry after EAGAIN is a timer: on a loaded machine it may fire well after its 20 ms
  await until(() => lines(state.written).length === 5);
  assert.deepEqual(
    lines(state.written).map((l) => l.n),
    [0, 1, 2, 3, 4],
  );
  assert.equal(output.stats().droppedLines, 0);
});

test('ENOSPC: lines are dropped and counted, nothing throws, and one warning says how many when writing works again', async () => {
  const { state, writer } = fakeFd();
  const output = new LogOutput({ writer, retryMs: 20, base: { service: 'svc' } });
  output.write('{"n":"before"}\n');
  await until(() => state.written.includes('before'));
  state.failWith = 'ENOSPC';
  for (let i = 0; i < 10; i++) {
    output.write(`{"n":${i}}\n`);
    await settle(2);
  }
  await settle(60); // several retries while the disk is still full
  assert.equal(output.stats().failing, 'ENOSPC');
  assert.equal(output.stats().droppedLines, 10);
  state.failWith = null;
  // the retries are timers: on a loaded machine they may fire well after their 20 ms
  await until(() => output.stats().failing === null);
  output.write('{"n":"after"}\n');
  await until(() => state.written.includes('after'));
  const written = lines(state.written);
  const warnings = written.filter((l) => typeof l.msg === 'string' && (l.msg as string).startsWith('logging resumed'));
  assert.equal(warnings.length, 1, state.written);
  assert.equal(warnings[0].level, 40);
  assert.equal(warnings[0].service, 'svc');
  assert.equal(warnings[0].droppedLines, 10);
  assert.match(String(warnings[0].msg), /10 log lines were dropped .*\(ENOSPC\)/);
  assert.deepEqual(
    written.map((l) => l.n ?? 'warning'),
    ['before', 'warning', 'after'],
  );
  assert.equal(output.stats().failing, null);
  assert.equal(output.stats().droppedLines, 10, 'the total stays for the metric');
});

test('a disk that fills up in the middle of a line: the fragment stays a line of its own, the next lines are whole', async () => {
  const { state, writer } = fakeFd();
  const output = new LogOutput({ writer, retryMs: 20 });
  output.write('{"n":"before"}\n');
  await until(() => state.written.includes('before'));
  state.room = 9; // '{"n":"cut' fits, the rest of the line does not
  output.write('{"n":"cut short"}\n');
  await until(() => output.stats().failing === 'ENOSPC');
  output.write('{"n":"dropped"}\n');
  state.failWith = null;
  state.room = Infinity;
  await until(() => output.stats().failing === null);
  output.write('{"n":"after"}\n');
  await until(() => state.written.includes('after'));
  const [before, fragment, ...rest] = state.written.split('\n');
  assert.equal(before, '{"n":"before"}');
  assert.equal(fragment, '{"n":"cut');
  assert.deepEqual(
    lines(rest.join('\n')).map((l) => l.n ?? l.droppedLines),
    [2, 'after'],
    'the warning counts the cut line and the dropped one; every line after the fragment parses',
  );
});

test('EPIPE (the reader went away) is handled like a full disk', async () => {
  const { state, writer } = fakeFd();
  const output = new LogOutput({ writer, retryMs: 1_000 });
  state.failWith = 'EPIPE';
  output.write('{"n":1}\n');
  await settle();
  output.write('{"n":2}\n');
  assert.equal(output.stats().failing, 'EPIPE');
  assert.equal(output.stats().droppedLines, 2);
});

test('a reader that stalls cannot make the buffer grow past its cap', async () => {
  const stalled: FdWriter = {
    write: () => {
      /* never calls back */
    },
    writeSync: () => 0,
  };
  const output = new LogOutput({ writer: stalled, maxBufferedBytes: 1_000 });
  for (let i = 0; i < 200; i++) output.write(`${'x'.repeat(99)}\n`);
  assert.ok(output.stats().droppedLines >= 189, String(output.stats().droppedLines));
});

test('at exit: one synchronous attempt, no retry loop, even while the output fails', () => {
  const { state, writer } = fakeFd();
  const output = new LogOutput({ writer, retryMs: 60_000 });
  state.failWith = 'ENOSPC';
  // queued lines while an async write is in flight, then exit with the disk full
  output.write('{"n":1}\n');
  output.write('{"n":2}\n');
  output.write('{"n":3}\n');
  output.flushSync();
  assert.ok(state.syncCalls <= 1, `writeSync called ${state.syncCalls} times`);
  state.failWith = null;
  const healthy = fakeFd();
  const ok = new LogOutput({ writer: healthy.writer });
  ok.write('{"n":1}\n');
  ok.write('{"n":2}\n');
  ok.flushSync();
  assert.deepEqual(
    lines(healthy.state.written).map((l) => l.n),
    [2],
    'the queued line is flushed; the one in flight is left to its async write',
  );
});

test('at exit, an output stuck on a write (a full pipe nobody reads) is not written to: the exit cannot hang', async () => {
  let syncCalls = 0;
  const stuck: FdWriter = {
    write: () => {
      /* never completes */
    },
    writeSync: () => {
      syncCalls++;
      return 0;
    },
  };
  const output = new LogOutput({ writer: stuck });
  output.write('{"n":1}\n');
  output.write('{"n":2}\n');
  await settle(600);
  output.flushSync();
  assert.equal(syncCalls, 0);
  assert.equal(output.stats().droppedLines, 1);
});
