import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running a TypeScript file: registers tsx inside the worker, then imports the file. Its output is
 * written to this process's as it comes rather than piped: Node pipes each worker's stdout and stderr into
 * process.stdout and process.stderr otherwise, and ten workers alive at once put more 'unpipe' listeners on them
 * than an emitter allows without a leak warning.
 */
export function tsWorker(file: URL, options: WorkerOptions = {}): Worker {
  const bootstrap = `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(file.href)});`;
  const worker = new Worker(bootstrap, { ...options, eval: true, execArgv: [], stdout: true, stderr: true });
  worker.stdout.on('data', (chunk: Buffer) => process.stdout.write(chunk));
  worker.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return worker;
}
