/** postject's console output during an injection (see postject-output.mjs). */
export declare function injectCapturingOutput<A extends unknown[]>(
  inject: (...args: A) => Promise<unknown>,
  ...args: A
): Promise<string[]>;
export declare function explainInjectOutput(lines: string[]): string[];
