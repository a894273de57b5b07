/**
 * One truth per fact in the documentation a newcomer reads (README.md, CHANGELOG.md, docs/*.md):
 * no line about the authors' own machines, one description of what SIGTERM does (the one in
 * operations.md, checked against the code's settings) that every other mention links to, the test
 * keys' per-call limit as configured, and a changelog whose newest version is package.json's.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const documents = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (document: string): string => readFileSync(join(ROOT, document), 'utf8');
const defaults = loadConfig({});

/** Paragraphs and list items (a table row or a line of a code block is its own unit), with their line. */
function units(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let current: { line: number; text: string } | null = null;
  let fenced = false;
  for (const [i, line] of markdown.split('\n').entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    const starts = fenced || line.trim() === '' || /^\s*([-*]|\d+\.)\s|^\|/.test(line) || line.startsWith('#');
    if (starts || current === null) {
      if (current) out.push(current);
      current = line.trim() === '' ? null : { line: i + 1, text: line };
    } else {
      current.text += `\n${line}`;
    }
  }
  if (current) out.push(current);
  return out;
}

test('no line describes the authors\' machines instead of the reader\'s ("these machines have v20")', () => {
  const problems: string[] = [];
  for (const document of documents) {
    for (const [i, line] of read(document).split('\n').entries()) {
      if (/\b(these|our|my) (machines?|computers?|boxes)\b/i.test(line)) problems.push(`${document}:${i + 1}: ${line.trim().slice(0, 160)}`);
      if (document.startsWith('docs/') && /\bthis README\b/i.test(line)) problems.push(`${document}:${i + 1}: "this README" in docs/`);
    }
  }
  assert.deepEqual(problems, []);
});

test('what SIGTERM does is told once, in operations.md, as src/shutdown.ts does it; other mentions link there', () => {
  const operations = read('docs/operations.md');
  const start = operations.indexOf('## Stopping and upgrading');
  const stopping = operations.slice(start, operations.indexOf('**Upgrading.**', start));
  const drainS = defaults.shutdownDrainMs / 1000;
  const deadlineS = defaults.optimize.requestDeadlineMs / 1000;
  for (const fact of ['`/readyz` answers 503', '`Connection: close`', `\`SHUTDOWN_DRAIN_MS\`, default ${drainS} s`, 'the listener stays open and serves',
    `\`REQUEST_DEADLINE_MS\` (${deadlineS} s) + 1 s`, '**exits 0**', '130 for SIGINT, 143 for SIGTERM', '`SHUTDOWN_DRAIN_MS` + `REQUEST_DEADLINE_MS` + 16 s', 'exits 1']) {
    assert.ok(stopping.includes(fact), `operations.md "Stopping" says ${fact}`);
  }

  const behaviour = /\bdrain|stops? accepting|in-flight|keeps? serving|exits? 0\b/i;
  const problems: string[] = [];
  for (const document of documents) {
    for (const { line, text } of units(read(document))) {
      if (/SIG(TERM|INT)`?\s*(\(or `?SIGINT`?\)\s*)?stops accepting/i.test(text)) problems.push(`${document}:${line}: SIGTERM does not stop accepting at once: the listener serves for the drain delay`);
      if (text.startsWith('|') || !/SIG(TERM|INT)/.test(text) || !behaviour.test(text)) continue;
      if (document === 'docs/operations.md' && line > operations.slice(0, start).split('\n').length && line <= operations.slice(0, start + stopping.length).split('\n').length) continue;
      const link = document === 'docs/operations.md' ? '(#stopping-and-upgrading)' : 'operations.md#stopping-and-upgrading)';
      const local = document === 'docs/self-hosting.md' && text.includes('(#signals)');
      if (!text.includes(link) && !local) problems.push(`${document}:${line}: describes a shutdown without linking to ${link}: ${text.slice(0, 120)}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the README gives the test keys\' per-call limit as configured, and how to get a live key then', () => {
  const readme = read('README.md');
  assert.ok(readme.includes(`**at most ${defaults.sandbox.maxStopsPerCall} stops per call**`), `README: at most ${defaults.sandbox.maxStopsPerCall} stops per call`);
  assert.match(readme, /keys create --kind live --stops \d+/);
  assert.match(readme, /POST \/api\/v1\/plans` \(up to 1000 stops/);
});

test('CHANGELOG.md: Unreleased on top, then package.json\'s version with a date; the tag convention', () => {
  const changelog = read('CHANGELOG.md');
  const pkg = JSON.parse(read('package.json')) as { version: string };
  const versions = [...changelog.matchAll(/^## (.+)$/gm)].map((m) => m[1]!).filter((h) => h !== 'Versions and tags');
  assert.equal(versions[0], 'Unreleased');
  assert.match(versions[1] ?? '', new RegExp(`^${pkg.version.replace(/\./g, '\\.')} — \\d{4}-\\d{2}-\\d{2}$`));
  assert.match(changelog, /annotated tag `vX\.Y\.Z`/);
  assert.match(read('docs/operations.md'), /\[CHANGELOG\.md\]\(\.\.\/CHANGELOG\.md\)/, 'the upgrade steps point at it');
});
