/**
 * Prometheus metrics (prom-client), one registry per app instance. Served at GET /metrics on a
 * separate listener (METRICS_PORT) and/or on the API port behind METRICS_TOKEN; not at all otherwise.
 * Every name starts with METRIC_PREFIX, the Node.js process metrics included.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'route_optimizer_';
const name = (n: string): string => `${METRIC_PREFIX}${n}`;

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: name('http_requests_total'),
    help: 'HTTP requests by route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: name('http_request_duration_seconds'),
    help: 'HTTP request latency by route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly geocoderCalls = new Counter({
    name: name('geocoder_calls_total'),
    help: 'Geocoder lookups by outcome (found, not_found, error, imprecise).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly routingCalls = new Counter({
    name: name('routing_calls_total'),
    help: 'Travel-matrix requests by engine (live, sandbox) and outcome.',
    labelNames: ['engine', 'outcome'],
    registers: [this.registry],
  });
  readonly solverDuration = new Histogram({
    name: name('solver_duration_seconds'),
    help: 'Time spent solving, by outcome.',
    labelNames: ['outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    registers: [this.registry],
  });
  private queueDepthSource: () => number = () => 0;
  readonly solverQueueDepth = new Gauge({
    name: name('solver_queue_depth'),
    help: 'Solves waiting for a worker.',
    registers: [this.registry],
    collect: () => {
      this.solverQueueDepth.set(this.queueDepthSource());
    },
  });
  readonly admissionRefusals = new Counter({
    name: name('admission_refusals_total'),
    help: 'Paid calls refused before any work (src/calls/admission.ts), by reason: deadline, memory, queue, key_seconds.',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  private admittedMemorySource: () => number = () => 0;
  readonly admittedMatrixBytes = new Gauge({
    name: name('admitted_matrix_bytes'),
    help: 'Estimated bytes of travel matrices held by the calls in progress (bounded by SOLVER_MEMORY_MB).',
    registers: [this.registry],
    collect: () => {
      this.admittedMatrixBytes.set(this.admittedMemorySource());
    },
  });
  readonly stopsDebited = new Counter({
    name: name('stops_debited_total'),
    help: 'Stops debited from live keys.',
    registers: [this.registry],
  });
  readonly stopsRefunded = new Counter({
    name: name('stops_refunded_total'),
    help: 'Stops refunded to live keys after a failed call.',
    registers: [this.registry],
  });

  private droppedLogLinesSource: () => number = () => 0;
  private droppedLogLinesReported = 0;
  readonly logLinesDropped = new Counter({
    name: name('log_lines_dropped_total'),
    help: 'Log lines dropped because the log output could not be written (disk full, reader gone).',
    registers: [this.registry],
    collect: () => {
      const total = this.droppedLogLinesSource();
      if (total > this.droppedLogLinesReported) this.logLinesDropped.inc(total - this.droppedLogLinesReported);
      this.droppedLogLinesReported = Math.max(total, this.droppedLogLinesReported);
    },
  });

  /** Where the dropped-log-lines counter reads the process's total when scraped. */
  observeDroppedLogLines(source: () => number): void {
    this.droppedLogLinesSource = source;
  }

  /** Where the admitted-matrix-bytes gauge reads its value when scraped. */
  observeAdmission(source: () => number): void {
    this.admittedMemorySource = source;
  }

  /** Where the queue-depth gauge reads its value when scraped. */
  observeSolverQueue(source: () => number): void {
    this.queueDepthSource = source;
  }

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
  }
}
