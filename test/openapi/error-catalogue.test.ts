/**
 * The error catalogue (src/errors.ts) against the spec's table of errors: a copy of it lives in
 * test/fixtures/spec-error-table.md, so a clone without the spec beside it checks too; when the spec is there
 * (in the shared/spec/ folder beside the checkout, as on CI), the copy is also checked against it.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors.js';
import { servedDocument } from './generate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/spec-error-table.md');
const SPEC_NAME = 'spec/route-optimization-service.md';
/** Where the spec lies: in the shared folder beside a clone (CI), or one level further up for a worktree in wt/<n>/. */
const SPEC_CANDIDATES = [join(ROOT, '..', 'shared', SPEC_NAME), join(ROOT, '..', '..', 'shared', SPEC_NAME)];
/** The spec leaves the checkout 503's code open ("not shown"); this service answers payment_unavailable. */
const CHECKOUT_CODE: ErrorCode = 'payment_unavailable';
const HEADER = '| Status | error code | Condition | Extra |';

/** The lines of the error table: from its header to the last row. */
function tableLines(markdown: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(HEADER);
  assert.ok(start >= 0, `no "${HEADER}" table`);
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start, end < 0 ? undefined : end);
}

interface SpecRow {
  status: number;
  code: ErrorCode;
  extra: string;
}

const rows: SpecRow[] = tableLines(readFileSync(FIXTURE, 'utf8'))
  .slice(2)
  .map((line) => {
    const [status, code, , extra] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    return { status: Number(status), code: (code === '(checkout)' ? CHECKOUT_CODE : code) as ErrorCode, extra };
  });
const catalogue = ERROR_CATALOGUE as Record<string, { status: number; spec: boolean }>;
const document = servedDocument() as Record<string, any>;

test("the fixture is the spec's table, when the spec lies beside the checkout", (t) => {
  const spec = SPEC_CANDIDATES.find((path) => existsSync(path));
  if (!spec) {
    t.skip(`no spec at ${SPEC_CANDIDATES.join(' or ')}: the catalogue is checked against the fixture alone`);
    return;
  }
  assert.deepEqual(
    tableLines(readFileSync(FIXTURE, 'utf8')),
    tableLines(readFileSync(spec, 'utf8')),
    `test/fixtures/spec-error-table.md no longer matches ${spec}: copy the table again`,
  );
});

test("every code of the spec's table is in the catalogue with the same status, marked spec: true", () => {
  assert.equal(rows.length, 10);
  for (const row of rows) {
    assert.ok(row.code in catalogue, `${row.code} is not in ERROR_CATALOGUE`);
    assert.equal(catalogue[row.code].status, row.status, row.code);
    assert.equal(catalogue[row.code].spec, true, `${row.code} must be spec: true`);
  }
});

test("every spec: true code of the catalogue is in the spec's table", () => {
  const inTable = new Set(rows.map((r) => r.code));
  assert.deepEqual(
    Object.keys(catalogue).filter((code) => catalogue[code].spec && !inTable.has(code as ErrorCode)),
    [],
  );
});

test("the extras the table names are in the OpenAPI document: body fields in the Error schema, headers on the code's response", () => {
  const withExtras = rows.filter((r) => r.extra !== '');
  assert.deepEqual(
    withExtras.map((r) => r.code),
    ['insufficient_stops', 'sandbox_rate_limited'],
  );
  const errorProperties = document.components.schemas.Error.properties;
  const optimize = document.paths['/api/v1/optimize'].post.responses;
  for (const row of withExtras) {
    const [, bodyPart = ''] = row.extra.split('body also has');
    const fields = [...bodyPart.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const headers = [...row.extra.matchAll(/header `([^`]+)`/g)].map((m) => m[1]);
    assert.ok(fields.length > 0 || headers.length > 0, row.extra);
    for (const field of fields) assert.ok(errorProperties[field], `Error.${field} (${row.code})`);
    const response = optimize[String(row.status)];
    for (const header of headers)
      assert.ok(response.headers?.[header], `${header} on the ${row.status} of POST /api/v1/optimize (${row.code})`);
  }
  assert.deepEqual(document.components.schemas.InsufficientStopsError.required, ['required', 'balance']);
});

test('each OpenAPI error response lists only codes whose catalogue status is its own', () => {
  const operations = [...Object.values<any>(document.paths), ...Object.values<any>(document.webhooks ?? {})].flatMap(
    (item) => Object.values<any>(item),
  );
  let checked = 0;
  for (const operation of operations) {
    for (const [status, response] of Object.entries<any>(operation.responses)) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const examples = Object.values<any>(response.content?.['application/json']?.examples ?? {});
      for (const example of examples) {
        // VROOM's error body (POST /api/v1/vroom) keeps the code in errorCode: its `error` is the message
        const code = (example.value?.errorCode ?? example.value?.error) as string | undefined;
        if (!code) continue;
        assert.equal(catalogue[code]?.status, Number(status), `${operation.operationId} ${status}: ${code}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 20, `only ${checked} error examples found`);
});
