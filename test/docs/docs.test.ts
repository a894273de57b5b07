/**
 * The documentation a newcomer reads: every relative link in README.md and
 * docs/*.md resolves inside the repository (anchors included), nothing in the
 * repository points outside it, and docs/api.md covers every field and every
 * error code with an example.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';
import { CLIENT_ERROR_CODES, ERROR_CATALOGUE } from '../../src/errors.js';
import { buildOpenApiDocument } from '../../src/api/openapi/document.js';
import { paymentOpenApiPaths } from '../../src/api/openapi/payments.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DOCS = join(ROOT, 'docs');
const documents = ['README.md', 'CHANGELOG.md', ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Link { href: string; text: string }

function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  marked.walkTokens(marked.lexer(markdown), (token: Token) => {
    if (token.type === 'link' || token.type === 'image') links.push({ href: (token as Tokens.Link).href, text: (token as Tokens.Link).text });
  });
  return links;
}

/** The anchors GitHub makes for a Markdown file's headings. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  marked.walkTokens(marked.lexer(markdown), (token: Token) => {
    if (token.type !== 'heading') return;
    const text = (token as Tokens.Heading).tokens.map((t) => ('text' in t ? String(t.text) : t.raw)).join('');
    anchors.add(slugger.slug(text));
  });
  return anchors;
}

test('docs/ has the api, self-hosting, operations and benchmarks guides', () => {
  for (const name of ['api.md', 'self-hosting.md', 'operations.md', 'benchmarks.md']) assert.ok(existsSync(join(DOCS, name)), name);
});

test('every relative link in README.md and docs/*.md resolves inside the repository, anchors included', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const document of documents) {
    const markdown = readFileSync(join(ROOT, document), 'utf8');
    for (const { href } of linksOf(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: …: outside by design
      checked++;
      const [pathPart, anchor] = href.split('#') as [string, string | undefined];
      const target = pathPart === '' ? join(ROOT, document) : resolve(dirname(join(ROOT, document)), decodeURIComponent(pathPart));
      if (target !== ROOT && !target.startsWith(ROOT + sep)) { problems.push(`${document}: ${href} leaves the repository`); continue; }
      if (!existsSync(target)) { problems.push(`${document}: ${href} → ${relative(ROOT, target)} does not exist`); continue; }
      if (anchor !== undefined && extname(target) === '.md' && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
        problems.push(`${document}: ${href} → no heading "#${anchor}" in ${relative(ROOT, target)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked > 20, `only ${checked} relative links checked`);
});

test('nothing in the repository points at files outside it', () => {
  const outside = ['..' + '/shared', '/work' + '/'];
  const skip = new Set(['node_modules', '.git', 'var', 'test-output', 'target', 'dist']); // dist: build output, paths of the machine that built it
  const problems: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (skip.has(name)) continue;
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) { walk(path); continue; }
      if (stat.size > 2_000_000 || !/\.(md|ts|mjs|js|json|sh|rs|toml|sql|yaml|yml|html|css|txt)$|^run$/.test(name)) continue;
      const text = readFileSync(path, 'utf8');
      for (const needle of outside) if (text.includes(needle)) problems.push(`${relative(ROOT, path)} mentions ${needle}`);
    }
  };
  walk(ROOT);
  assert.deepEqual(problems, []);
});

test('docs/api.md shows every error code with an example body, and every status of the specification', () => {
  const api = readFileSync(join(DOCS, 'api.md'), 'utf8');
  const examples = new Map<string, Record<string, unknown>>();
  marked.walkTokens(marked.lexer(api), (token: Token) => {
    if (token.type !== 'code' || (token as Tokens.Code).lang !== 'json') return;
    const body = JSON.parse((token as Tokens.Code).text) as Record<string, unknown>;
    if (typeof body.error === 'string') examples.set(body.error, body);
  });
  for (const code of CLIENT_ERROR_CODES) {
    const example = examples.get(code);
    assert.ok(example, `an example Error body for ${code}`);
    assert.equal(typeof example.message, 'string', code);
    assert.equal(typeof example.requestId, 'string', code);
    assert.ok(api.includes(`| ${ERROR_CATALOGUE[code].status} | \`${code}\` |`), `${code} in the error table with its status`);
  }
  for (const status of [200, 400, 401, 402, 422, 429, 502, 503]) assert.ok(api.includes(String(status)), String(status));
});

test('docs/api.md names every field of every schema of the OpenAPI document', () => {
  const api = readFileSync(join(DOCS, 'api.md'), 'utf8');
  const document = buildOpenApiDocument('http://localhost:3000', paymentOpenApiPaths) as { components: { schemas: Record<string, any> } };
  const fields = new Set<string>();
  const collect = (schema: any): void => {
    if (!schema || typeof schema !== 'object') return;
    for (const name of Object.keys(schema.properties ?? {})) fields.add(name);
    for (const value of Object.values(schema)) if (value && typeof value === 'object') collect(value);
  };
  for (const schema of Object.values(document.components.schemas)) collect(schema);
  const missing = [...fields].filter((f) => !api.includes(`\`${f}\``));
  assert.deepEqual(missing, []);
  assert.ok(fields.size > 30, `${fields.size} fields`);
});
