/**
 * The TypeScript client types of the served OpenAPI document, generated with
 * openapi-typescript. test/openapi/generated/api.ts is this output, committed
 * so that the client tests type-check; the test run regenerates it and fails
 * when it differs. Refresh it with: npx tsx test/openapi/generate.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildOpenApiDocument } from '../../src/api/openapi/document.js';
import { paymentOpenApiPaths } from '../../src/api/openapi/payments.js';

export const GENERATED_TYPES = fileURLToPath(new URL('./generated/api.ts', import.meta.url));

/** The document as a default server serves it (the server URL does not reach the types). */
export function servedDocument(): object {
  return buildOpenApiDocument('http://localhost:3000', paymentOpenApiPaths);
}

export async function generateTypes(document: object = servedDocument()): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: true });
  return COMMENT_HEADER + astToString(ast);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(GENERATED_TYPES, await generateTypes());
  process.stderr.write(`wrote ${GENERATED_TYPES}\n`);
}
