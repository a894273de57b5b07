/**
 * Type-checks a few TypeScript files written into `dir` (strict, NodeNext, no emit), as a client project that
 * imports the generated OpenAPI types would: the diagnostics the compiler reports.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export function typeCheck(dir: string, files: Record<string, string>): readonly ts.Diagnostic[] {
  const project = join(dir, 'client');
  mkdirSync(project, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((n) => join(project, n)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    },
  );
  return ts.getPreEmitDiagnostics(program);
}
