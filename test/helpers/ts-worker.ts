import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker thread running a TypeScript file: registers tsx inside the worker, then imports the file. */
export function tsWorker(file: URL, options: WorkerOptions = {}): Worker {
  const bootstrap = `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(file.href)});`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: [] });
}
