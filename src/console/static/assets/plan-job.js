// An asynchronous plan from the fleet playground: POST /api/v1/plans with `Prefer: respond-async` (202 and a
// job), then the job's Server-Sent Events until it ends. The stream is read with fetch, since EventSource cannot
// send the key's Authorization header; when it breaks, the job is read with GET and the stream opened again.
import { ApiFailure, callApi } from './api.js';

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Submits `request` as a job and follows it: `onAccepted(answer)` with the 202's body, `onJob(job)` at every state
 * it reports; resolves with the finished job (succeeded, failed or cancelled).
 */
export async function runPlanJob(request, { key, onAccepted, onJob }) {
  const { body: accepted } = await callApi('/api/v1/plans', {
    method: 'POST',
    key,
    body: request,
    headers: { Prefer: 'respond-async' },
  });
  onAccepted?.(accepted);
  for (;;) {
    try {
      const job = await followEvents(accepted.id, key, onJob);
      if (job) return job;
    } catch (err) {
      // the job itself is refused (404, 401): the stream cannot help
      if (err instanceof ApiFailure && err.status !== 0) throw err;
    }
    const { body: job } = await callApi(`/api/v1/jobs/${accepted.id}`, { key });
    onJob(job);
    if (FINISHED.has(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Asks the service to stop the job: a running solve ends and keeps its best plan. */
export function cancelPlanJob(id, key) {
  return callApi(`/api/v1/jobs/${id}`, { method: 'DELETE', key });
}

/** Reads the job's events; resolves with the job of its `end` event, or null when the stream ended without one. */
async function followEvents(id, key, onJob) {
  let response;
  try {
    response = await fetch(`/api/v1/jobs/${id}/events`, {
      headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}` },
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiFailure(0, 'network_error', err instanceof Error ? err.message : String(err));
  }
  if (!response.ok || !response.body) {
    const data = await response.json().catch(() => null);
    throw new ApiFailure(
      response.status,
      data?.error ?? `http_${response.status}`,
      data?.message ?? 'No event stream.',
    );
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += value.replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (!event) continue;
        const job = JSON.parse(event.data);
        onJob(job);
        if (event.event === 'end') return job;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** One event block of text/event-stream: its `event` name (default "message") and its data lines; null without data. */
export function parseEvent(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { event, data: data.join('\n') } : null;
}
