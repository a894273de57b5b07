/** The project's Node.js runtime (see runtime.mjs). */
export interface Runtime {
  path: string;
  version: string;
  bundled: boolean;
}
export declare const ROOT: string;
export declare function requiredMajor(): number;
export declare function majorOf(version: string): number;
export declare function bundledRuntime(): string | null;
export declare function projectRuntime(): Runtime;
export declare function runtimeProblem(runtime: Runtime): string | null;
export declare function isOtherThan(runtime: Runtime): boolean;
export declare function installerNodeNote(env: Record<string, string | undefined>, runtime: Runtime): string | null;
