/**
 * HTTP calls of bench:fairness: one request with its status, error code and time (`request`), and the flood of
 * big plans run in a worker thread of its own (`floodInWorker`). Writing the flood's bodies and reading its
 * answers (hundreds of kB of JSON each) keep a thread busy for tens of ms; on the thread that times /healthz
 * and the other key's calls, that time was counted as the server's (a 197 ms /healthz while the server's own
 * event loop was never late by more than 79 ms).
 */
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface Answer {
  status: number | string;
  error?: string;
  ms: number;
}

/** One request; the body is read whole (its error code kept). */
export function request(
  url: string,
  init: { method?: string; key?: string; body?: string; agent?: http.Agent },
): Promise<Answer> {
  const started = performance.now();
  return new Promise((done) => {
    const req = http.request(
      url,
      {
        method: init.method ?? 'GET',
        agent: init.agent,
        timeout: 120_000,
        headers: {
          ...(init.key ? { Authorization: `Bearer ${init.key}` } : {}),
          ...(init.body ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          let error: string | undefined;
          if ((res.statusCode ?? 0) >= 400) {
            try {
              error = (JSON.parse(Buffer.concat(chunks).toString()) as { error?: string }).error;
            } catch {
              /* not JSON */
            }
          }
          done({ status: res.statusCode ?? 0, ...(error ? { error } : {}), ms });
        });
        res.on('error', () => done({ status: 'error', ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) =>
      done({ status: err.message === 'timeout' ? 'timeout' : 'error', ms: performance.now() - started }),
    );
    if (init.body) req.write(init.body);
    req.end();
  });
}

interface FloodData {
  url: string;
  key: string;
  bodies: string[];
}

/** Sends every body at once to `url` from a worker thread; resolves with each answer, in order. */
export function floodInWorker(data: FloodData): Promise<Answer[]> {
  const bootstrap = `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(import.meta.url)});`;
  const worker = new Worker(bootstrap, { eval: true, execArgv: [], workerData: data });
  return new Promise((resolve, reject) => {
    worker.once('message', (answers: Answer[]) => {
      resolve(answers);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the flood worker exited (${code}) before answering`)));
  });
}

if (!isMainThread && parentPort && (workerData as FloodData | undefined)?.bodies) {
  const { url, key, bodies } = workerData as FloodData;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const answers = await Promise.all(bodies.map((body) => request(url, { method: 'POST', key, body, agent })));
  agent.destroy();
  parentPort.postMessage(answers);
}
