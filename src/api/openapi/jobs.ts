/**
 * Asynchronous plans in the OpenAPI document: the `Prefer: respond-async` form of POST /api/v1/plans (202 and a
 * job) and the job's paths: GET /api/v1/jobs/{id}, GET …/events (Server-Sent Events), DELETE (cancel).
 */
import {
  defaultErrorResponse,
  errorResponse,
  headers,
  json,
  ref,
  storageUnavailableResponse,
  unauthorizedResponse,
} from './parts.js';
import { dateTime } from './route-parts.js';

const JOB_ID = '0b7e3a52-8f0d-4c55-9a4e-2f5d7c1b9e60';

export const jobAccepted = {
  type: 'object',
  description:
    'Extension. An asynchronous plan was accepted and charged (as a synchronous plan is: one stop per stop sent, refunded if the job fails or is cancelled before any plan exists). Follow `Location`.',
  properties: {
    id: { type: 'string', description: 'The job id.' },
    status: { type: 'string', enum: ['queued'] },
    stopsCharged: { type: 'integer', minimum: 0 },
    stopsBalance: { type: 'integer', minimum: 0, description: 'Live keys: the balance after this call.' },
    sandbox: { type: 'boolean', enum: [true], description: 'Test keys only.' },
    sandboxStopsRemainingToday: { type: 'integer', minimum: 0, description: 'Test keys only.' },
  },
  required: ['id', 'status', 'stopsCharged'],
};

export const jobProgress = {
  type: 'object',
  description:
    "How the job stands, written every JOB_PROGRESS_MS while it runs: the solver's best plan so far; once it ends, the result's figures.",
  properties: {
    elapsedMs: { type: 'integer', minimum: 0, description: 'Milliseconds since its solve started (0 while queued).' },
    budgetMs: { type: 'integer', minimum: 1, description: 'Its solve budget (timeLimitSeconds, or the budget rule).' },
    improvements: {
      type: 'integer',
      minimum: 0,
      description:
        'Best plans the solver has found so far (its first plan, after the construction, counts 1); 0 before.',
    },
    assigned: { type: 'integer', minimum: 0, description: 'Stops the best plan so far serves.' },
    objective: {
      anyOf: [{ type: 'number' }, { type: 'null' }],
      description:
        "The best plan so far's total route time in minutes, waits included (the result's totals.estimatedTimeMin once it ends); null before the first plan.",
    },
  },
  required: ['elapsedMs', 'budgetMs', 'improvements', 'assigned', 'objective'],
};

export const job = {
  type: 'object',
  description:
    'Extension. An asynchronous plan: visible only to the key that created it, kept JOB_RETENTION_DAYS (7 by default) after it ends.',
  properties: {
    id: { type: 'string' },
    status: {
      type: 'string',
      enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'],
      description:
        'queued → running → succeeded | failed; cancelled from queued (refunded) or running (the best plan so far is kept as `result` when one exists, else refunded).',
    },
    createdAt: dateTime,
    startedAt: dateTime,
    finishedAt: dateTime,
    progress: ref('schemas', 'JobProgress'),
    result: {
      ...ref('schemas', 'PlanResponse'),
      description: 'The plan, when the job succeeded (or was cancelled with a plan).',
    },
    error: { ...ref('schemas', 'Error'), description: 'Why it failed (nothing was charged).' },
  },
  required: ['id', 'status', 'createdAt', 'progress'],
};

export const JOB_SCHEMAS: Record<string, object> = { JobAccepted: jobAccepted, JobProgress: jobProgress, Job: job };

const queuedJob = {
  id: JOB_ID,
  status: 'queued',
  createdAt: '2026-06-01T05:00:00.000Z',
  progress: { elapsedMs: 0, budgetMs: 120000, improvements: 0, assigned: 0, objective: null },
};

/** The header that asks for an asynchronous plan. */
export const PREFER_PARAMETER = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    'Extension (RFC 7240). `respond-async`: answer 202 at once with a job to follow (GET /api/v1/jobs/{id}), charged at acceptance; the request may then set `timeLimitSeconds`.',
  schema: { type: 'string', examples: ['respond-async'] },
};

/** POST /api/v1/plans's 202. */
export const ACCEPTED_RESPONSE = {
  202: json(
    'Extension, with `Prefer: respond-async`: the job was accepted and charged; `Location` is where to read it.',
    ref('schemas', 'JobAccepted'),
    {
      accepted: {
        summary: 'A live key’s plan of 400 stops, queued',
        value: { id: JOB_ID, status: 'queued', stopsCharged: 400, stopsBalance: 600 },
      },
    },
    {
      ...headers('Idempotent-Replayed'),
      Location: { description: 'The job: /api/v1/jobs/{id}.', required: true, schema: { type: 'string' } },
      'Preference-Applied': { description: '`respond-async`.', required: true, schema: { type: 'string' } },
    },
  ),
};

const notFound = errorResponse(
  'No job with this id for this key (a job is visible only to the key that created it, and deleted JOB_RETENTION_DAYS after it ends).',
  ['not_found'],
);
const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The job id (the `id` of the 202 answer).',
  schema: { type: 'string' },
};
const common = {
  tags: ['Optimization'],
  security: [{ bearer: [] }],
  parameters: [idParameter, ref('parameters', 'X-Request-Id')],
};
const errors = {
  401: unauthorizedResponse,
  404: notFound,
  503: storageUnavailableResponse,
  default: defaultErrorResponse,
};
const jobResponse = (description: string, value: object) =>
  json(description, ref('schemas', 'Job'), { queued: { summary: 'A queued job', value } });

export const jobsPaths = {
  '/api/v1/jobs/{id}': {
    get: {
      ...common,
      summary: 'Read an asynchronous plan',
      description: 'Extension. Its status, progress, and its result (PlanResponse) or error once it has ended.',
      operationId: 'getJob',
      responses: { 200: jobResponse('The job.', queuedJob), ...errors },
    },
    delete: {
      ...common,
      summary: 'Cancel an asynchronous plan',
      description:
        'Extension. A queued job ends `cancelled` at once and is refunded; a running one is asked to stop and ends `cancelled` within about a second, keeping its best plan as `result` (charged) when one exists, else refunded. A finished job is left as it is. Answers the job as it stands.',
      operationId: 'cancelJob',
      responses: {
        200: jobResponse('The job after the cancel request.', { ...queuedJob, status: 'cancelled' }),
        ...errors,
      },
    },
  },
  '/api/v1/jobs/{id}/events': {
    get: {
      ...common,
      summary: 'Follow an asynchronous plan (Server-Sent Events)',
      description:
        'Extension. A `text/event-stream`: an `event: status` with the Job whenever its status or progress changes, then one `event: end` with the final Job, and the stream ends.',
      operationId: 'jobEvents',
      responses: {
        200: {
          description: 'The event stream; each `data:` line is a Job.',
          headers: headers(),
          content: {
            'text/event-stream': {
              schema: { type: 'string' },
              examples: {
                ended: {
                  summary: 'A job followed from queued to its end (data lines shortened)',
                  value: `retry: 1000\n\nid: 1\nevent: status\ndata: {"id":"${JOB_ID}","status":"running",…}\n\nid: 2\nevent: end\ndata: {"id":"${JOB_ID}","status":"succeeded",…}\n\n`,
                },
              },
            },
          },
        },
        ...errors,
      },
    },
  },
};
