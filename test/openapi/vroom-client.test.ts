/**
 * The generated client types (test/openapi/generated/api.ts) for POST /api/v1/vroom: VROOM's documented examples
 * and an openrouteservice-style request type-check as VroomRequest; what VROOM's format refuses does not; the
 * answer and the error body are typed as the service sends them. Every request and response example of the
 * operation validates against its own schema in the served document.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import ts from 'typescript';
import { typeCheck } from '../helpers/type-check.js';
import { GENERATED_TYPES, servedDocument } from './generate.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

const dir = mkdtempSync(join(tmpdir(), 'ros-vroom-client-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/vroom/${name}.json`, import.meta.url), 'utf8');

const diagnose = (files: Record<string, string>): readonly ts.Diagnostic[] => typeCheck(dir, files);

const INVALID: Array<[string, string]> = [
  ['an id as a string', `const a: Request = { vehicles: [{ id: 'van', start: [2.35, 48.85] }] };`],
  [
    'a location as an object',
    `const a: Request = { vehicles: [{ id: 1, start: { latitude: 48.85, longitude: 2.35 } }] };`,
  ],
  ['a vehicle without id', `const a: Request = { vehicles: [{ start: [2.35, 48.85] }] };`],
  ['a shipment without delivery', `const a: Request = { vehicles, shipments: [{ pickup: { id: 1 } }] };`],
  ['options.g as a string', `const a: Request = { vehicles, options: { g: 'yes' } };`],
  ['matrices without durations', `const a: Request = { vehicles, matrices: { car: { distances: [[0]] } } };`],
  ['a step type VROOM has no', `const s: components['schemas']['VroomStep']['type'] = 'reload';`],
  ['an unknown error code', `const e: components['schemas']['VroomError']['errorCode'] = 'teapot';`],
];

test('VROOM requests type-check as VroomRequest; what the format refuses does not; answers are typed', () => {
  const valid = [
    `import type { components } from './api.js';`,
    `type Request = components['schemas']['VroomRequest'];`,
    `const example2: Request = ${fixture('example_2')};`,
    `const example1: Request = ${fixture('example_1')};`,
    `const response = (r: components['schemas']['VroomResponse']) => r.routes.map((route) => route.steps.map((s) => [s.arrival, s.load?.[0], s.distance]));`,
    `const error = (e: components['schemas']['VroomError']) => [e.code, e.error, e.errorCode, e.param];`,
    `export { example1, example2, response, error };`,
  ].join('\n');
  const invalid = [
    `import type { components } from './api.js';`,
    `type Request = components['schemas']['VroomRequest'];`,
    `const vehicles = [{ id: 1, start: [2.35, 48.85] }];`,
    ...INVALID.map(([, code], i) => `function case${i}() { ${code} }`),
    `export { vehicles, ${INVALID.map((_, i) => `case${i}`).join(', ')} };`,
  ].join('\n');
  const diagnostics = diagnose({
    'api.ts': readFileSync(GENERATED_TYPES, 'utf8'),
    'valid.ts': valid,
    'invalid.ts': invalid,
  });
  const message = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const inFile = (name: string) => diagnostics.filter((d) => d.file?.fileName.endsWith(`/${name}`));
  assert.deepEqual(inFile('valid.ts').map(message), [], 'valid requests type-check');
  const badLines = new Set(inFile('invalid.ts').map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line));
  INVALID.forEach(([name], i) => assert.ok(badLines.has(3 + i), `"${name}" must not type-check`));
});

test('every example of POST /api/v1/vroom validates against its schema in the served document', () => {
  const document = servedDocument() as any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components });
  const operation = document.paths['/api/v1/vroom'].post;
  const media = [
    operation.requestBody.content['application/json'],
    ...Object.entries<any>(operation.responses)
      .filter(([status]) => status !== 'default')
      .map(([, r]) => r.content['application/json']),
  ];
  let checked = 0;
  for (const { schema, examples } of media) {
    const validate = ajv.compile(resolveRefs(schema));
    for (const [name, example] of Object.entries<any>(examples)) {
      assert.ok(validate(example.value), `${name}: ${JSON.stringify(validate.errors)}`);
      checked++;
    }
  }
  assert.ok(checked >= 15, `${checked} examples`);
});

/** `#/components/…` → `openapi#/components/…`, so the compiled schema finds the document's components. */
function resolveRefs(node: any): any {
  if (Array.isArray(node)) return node.map(resolveRefs);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === '$ref' ? `openapi${String(v)}` : resolveRefs(v)]),
  );
}
