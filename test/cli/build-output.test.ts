/** npm run build:binary: postject's nine LIEF section-name warnings become one line saying why; anything else it prints is shown as is. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { explainInjectOutput, injectCapturingOutput } from '../../scripts/lib/postject-output.mjs';

const warning = (name: string) => `warning: Can't find string offset for section name '${name}'`;
const nine = [...Array(5).fill(warning('.note.100')), warning('.note'), ...Array(3).fill(warning('.note.100'))];

test('the nine known warnings are one line naming the cause; other output passes through', () => {
  const lines: string[] = explainInjectOutput(nine);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /^postject: 9 note section\(s\) left unnamed \(\.note\.100, \.note: .*annobin build notes.*PT_NOTE/,
  );
  assert.deepEqual(explainInjectOutput([]), []);
  assert.deepEqual(explainInjectOutput([...nine, 'error: something new']).slice(1), ['error: something new']);
  assert.deepEqual(explainInjectOutput(["warning: Can't find string offset for section name '.text'"]), [
    "warning: Can't find string offset for section name '.text'",
  ]);
});

test('injectCapturingOutput collects what the injector prints and restores the console, also when it throws', async () => {
  const { log, warn } = console;
  const lines: string[] = await injectCapturingOutput(async (a: string) => {
    console.warn(warning(a));
    console.log('two\nlines');
  }, '.note');
  assert.deepEqual(lines, [warning('.note'), 'two', 'lines']);
  await assert.rejects(
    injectCapturingOutput(async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(console.log, log);
  assert.equal(console.warn, warn);
});
