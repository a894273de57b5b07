/**
 * The asynchronous plans' jobs: GET /api/v1/jobs/{id} (its state, progress and result), GET …/events (the same as
 * Server-Sent Events until it ends) and DELETE (cancel). A job is visible only to the key that created it:
 * any other key, like an unknown id, gets 404.
 */
import { PassThrough } from 'node:stream';
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { DomainError } from '../../../errors.js';
import type { AppContext, AppState } from '../../../http/state.js';
import type { Job, JobStore } from '../../../store/types.js';
import { isFinished, jobView } from './view.js';

export interface JobsRouterDeps {
  auth: Middleware<AppState>;
  store: Pick<JobStore, 'job' | 'cancelJob'>;
  clock: () => Date;
  /** How often the events stream reads the job (ms). Default 250. */
  eventsPollMs?: number;
}

const notFound = (id: string): DomainError =>
  new DomainError(
    'not_found',
    `No asynchronous plan ${id} for this key: check the id from the Location header of the 202 answer (a job is visible only to the key that created it, and deleted JOB_RETENTION_DAYS after it ends).`,
  );

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

export function jobsRouter(deps: JobsRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  const find = async (ctx: AppContext): Promise<Job> => {
    const job = await deps.store.job(ctx.state.apiKey!.id, String(ctx.params.id));
    if (!job) throw notFound(String(ctx.params.id));
    return job;
  };

  router.get('/api/v1/jobs/:id', deps.auth, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = jobView(await find(ctx));
  });

  router.delete('/api/v1/jobs/:id', deps.auth, async (ctx) => {
    const job = await deps.store.cancelJob(ctx.state.apiKey!.id, String(ctx.params.id), deps.clock());
    if (!job) throw notFound(String(ctx.params.id));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = jobView(job);
  });

  router.get('/api/v1/jobs/:id/events', deps.auth, async (ctx) => {
    const first = await find(ctx);
    const stream = new PassThrough();
    ctx.set({ 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Connection: 'keep-alive' });
    ctx.type = 'text/event-stream; charset=utf-8';
    ctx.status = 200;
    ctx.body = stream;
    ctx.req.socket.setTimeout(0);
    void streamEvents(stream, first, () => deps.store.job(first.keyId, first.id), deps.eventsPollMs ?? 250);
  });
  return router;
}

/**
 * Writes the job as `event: status` whenever it changes (its state or progress), then `event: end` with its final
 * state, and ends. Stops as soon as the client goes away.
 */
async function streamEvents(
  stream: PassThrough,
  first: Job,
  read: () => Promise<Job | null>,
  pollMs: number,
): Promise<void> {
  let closed = false;
  stream.on('close', () => (closed = true));
  let sent = '';
  let eventId = 0;
  let lastWrite = Date.now();
  const send = (event: string, data: string): void => {
    stream.write(`id: ${++eventId}\nevent: ${event}\ndata: ${data}\n\n`);
    lastWrite = Date.now();
  };
  stream.write(`retry: ${Math.max(1000, pollMs)}\n\n`);
  let job: Job | null = first;
  try {
    while (!closed && job) {
      const data = JSON.stringify(jobView(job));
      if (isFinished(job.status)) {
        send('end', data);
        break;
      }
      if (data !== sent) {
        send('status', data);
        sent = data;
      } else if (Date.now() - lastWrite >= KEEPALIVE_MS) {
        stream.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
      await new Promise((r) => setTimeout(r, pollMs));
      job = await read();
    }
  } catch {
    // the store failed mid-stream: the client reconnects (retry) or reads GET /api/v1/jobs/{id}
  } finally {
    stream.end();
  }
}
