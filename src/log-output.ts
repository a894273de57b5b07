/**
 * Where log lines go: a file descriptor (stdout), written asynchronously, that
 * never takes the service down. When the output cannot be written (a full disk
 * under a redirected stdout: ENOSPC; a reader that went away: EPIPE; EIO …) lines
 * are dropped and counted, the output is retried once a second, and the first
 * line that gets through again is one warning saying how many were lost. At
 * exit the pending lines get one synchronous attempt, never a retry loop, so a
 * process that must exit does exit.
 *
 * Hand-written rather than pino's default (sonic-boom): sonic-boom re-emits
 * ENOSPC as an unhandled 'error' event, and its exit-time flushSync retries
 * every error other than EAGAIN forever, which is how a full disk hung the
 * process with its port open.
 */
import { write as fsWrite, writeSync } from 'node:fs';

/** The two fs calls the output makes; tests inject failures here. */
export interface FdWriter {
  write(fd: number, data: Buffer, callback: (err: NodeJS.ErrnoException | null, written: number) => void): void;
  writeSync(fd: number, data: Buffer): number;
}

const nodeWriter: FdWriter = {
  write: (fd, data, callback) => fsWrite(fd, data, 0, data.length, null, callback),
  writeSync: (fd, data) => writeSync(fd, data),
};

export interface LogOutputOptions {
  fd?: number;
  writer?: FdWriter;
  /** Lines waiting to be written beyond this are dropped (a stalled reader must not eat memory). Default 4 MiB. */
  maxBufferedBytes?: number;
  /** How often a failed output is tried again. Default 1 s. */
  retryMs?: number;
  /** Fields of the warning line, as the logger writes its own (pino's `base`). */
  base?: Record<string, unknown>;
  /** Whether warnings are logged at the configured level (pino: level ≤ warn). */
  warningsEnabled?: () => boolean;
}

export interface LogOutputStats {
  /** Lines dropped since the process started. */
  droppedLines: number;
  /** The error code while the output cannot be written, else null. */
  failing: string | null;
}

/** Bytes handed to one write: an optional warning line, then `lines` log lines. */
interface Chunk {
  data: Buffer;
  lines: number;
  offset: number;
  warningBytes: number;
  /** Dropped lines the warning line reports. */
  reports: number;
}

/** At exit, an async write pending longer than this means the output is stuck. */
const STALLED_WRITE_MS = 500;

/** Errors worth waiting out without dropping anything: the output is only busy. */
const BUSY = new Set(['EAGAIN', 'EWOULDBLOCK', 'EBUSY', 'EINTR']);

export class LogOutput {
  private readonly fd: number;
  private readonly writer: FdWriter;
  private readonly maxBufferedBytes: number;
  private readonly retryMs: number;
  private readonly base: Record<string, unknown>;
  private readonly warningsEnabled: () => boolean;
  private queue: string[] = [];
  private queuedBytes = 0;
  /** The chunk being written and how much of it is done. */
  private inFlight: Chunk | null = null;
  /** When the write of `inFlight` was handed to the thread pool. */
  private inFlightSince = 0;
  private failure: string | null = null;
  /** After a failure, one write is being tried again: lines wait for its outcome instead of being dropped. */
  private probing = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private droppedTotal = 0;
  /** Dropped since the last warning line was written. */
  private droppedUnreported = 0;
  private firstDropCode: string | null = null;
  /**
   * The last byte that reached the output was not a newline: a write that ran out of space stopped in the middle
   * of a line. The next chunk starts with a newline so that the fragment stays a line of its own and the next
   * line (the warning) is whole.
   */
  private lineOpen = false;

  constructor(options: LogOutputOptions = {}) {
    this.fd = options.fd ?? 1;
    this.writer = options.writer ?? nodeWriter;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 4 * 1024 * 1024;
    this.retryMs = options.retryMs ?? 1_000;
    this.base = options.base ?? {};
    this.warningsEnabled = options.warningsEnabled ?? (() => true);
  }

  stats(): LogOutputStats {
    return { droppedLines: this.droppedTotal, failing: this.failure };
  }

  /** pino's destination interface: one call per line (the line ends with \n). */
  write(line: string): boolean {
    if ((this.failure !== null && !this.probing) || this.queuedBytes + line.length > this.maxBufferedBytes) {
      this.drop(1, this.failure ?? 'ENOBUFS');
      return true;
    }
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (this.inFlight === null && this.retryTimer === null) this.writeNext();
    return true;
  }

  /**
   * One synchronous attempt to write what is pending (process exit). Never throws, never retries:
   * whatever cannot be written now is dropped.
   */
  flushSync(): void {
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    if (this.failure !== null) return;
    // an async write still pending after a while means the reader is stuck (a full pipe nobody drains): a blocking
    // write would hang the exit, so what waits is dropped
    if (this.inFlight !== null && Date.now() - this.inFlightSince > STALLED_WRITE_MS) {
      this.droppedTotal += this.queue.length;
      return;
    }
    // a chunk handed to an async write may or may not land; writing it again could duplicate lines, so it is left to that write
    const pending = this.takeQueue();
    if (pending === null) return;
    try {
      for (let attempts = 0; pending.offset < pending.data.length && attempts < 100; attempts++) {
        this.advance(
          pending,
          this.writer.writeSync(this.fd, pending.offset === 0 ? pending.data : pending.data.subarray(pending.offset)),
        );
      }
    } catch {
      // exiting: nothing more can be done for these lines
    }
    if (pending.offset < pending.data.length)
      this.droppedTotal += Math.min(pending.lines, countLines(pending.data.subarray(pending.offset)));
  }

  private drop(lines: number, code: string): void {
    if (lines <= 0) return;
    this.droppedTotal += lines;
    this.droppedUnreported += lines;
    this.firstDropCode ??= code;
  }

  private takeQueue(): Chunk | null {
    const reports = this.droppedUnreported;
    const warning =
      (this.lineOpen ? '\n' : '') + (reports > 0 && this.warningsEnabled() ? this.warningLine(reports) : '');
    if (this.queue.length === 0 && warning === '') return null;
    const text = warning + this.queue.join('');
    const lines = this.queue.length;
    this.queue = [];
    this.queuedBytes = 0;
    return { data: Buffer.from(text, 'utf8'), lines, offset: 0, warningBytes: Buffer.byteLength(warning), reports };
  }

  /** The drops a written warning line reported are no longer unreported. */
  private reported(chunk: Chunk): void {
    this.droppedUnreported = Math.max(0, this.droppedUnreported - chunk.reports);
    if (this.droppedUnreported === 0) this.firstDropCode = null;
  }

  private warningLine(dropped: number): string {
    const code = this.firstDropCode ?? 'unknown';
    return `${JSON.stringify({
      level: 40,
      time: Date.now(),
      ...this.base,
      droppedLines: dropped,
      cause: code,
      msg: `logging resumed: ${dropped} log line${dropped === 1 ? ' was' : 's were'} dropped while the log output could not be written (${code})`,
    })}\n`;
  }

  private writeNext(): void {
    this.inFlight ??= this.takeQueue();
    const chunk = this.inFlight;
    if (chunk === null) return;
    this.inFlightSince = Date.now();
    this.writer.write(this.fd, chunk.offset === 0 ? chunk.data : chunk.data.subarray(chunk.offset), (err, written) => {
      if (err) return this.onError(chunk, err);
      this.advance(chunk, written);
      if (chunk.offset < chunk.data.length) return this.writeNext();
      this.inFlight = null;
      this.reported(chunk);
      this.failure = null;
      this.probing = false;
      this.writeNext();
    });
  }

  /** `written` more bytes of `chunk` reached the output. */
  private advance(chunk: Chunk, written: number): void {
    if (written <= 0) return;
    chunk.offset += written;
    this.lineOpen = chunk.data[chunk.offset - 1] !== 10;
  }

  private onError(chunk: Chunk, err: NodeJS.ErrnoException): void {
    const code = err.code ?? 'EIO';
    if (BUSY.has(code)) {
      // keep the chunk, try again shortly
      this.scheduleRetry(10);
      return;
    }
    // the output is broken (disk full, reader gone): drop what was being written and what waits, until it works again
    this.inFlight = null;
    this.failure = code;
    this.probing = false;
    let lost = this.queue.length;
    if (chunk.offset >= chunk.warningBytes) {
      if (chunk.warningBytes > 0) this.reported(chunk);
      lost += chunk.offset < chunk.data.length ? countLines(chunk.data.subarray(chunk.offset)) : 0;
    } else {
      lost += chunk.lines;
    }
    this.drop(lost, code);
    this.queue = [];
    this.queuedBytes = 0;
    this.scheduleRetry(this.retryMs);
  }

  private scheduleRetry(ms: number): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      // try again: the warning line (dropped lines are unreported) is the probe; the failure stands until a write succeeds
      if (this.failure !== null) this.probing = true;
      this.writeNext();
    }, ms);
    this.retryTimer.unref();
  }
}

function countLines(data: Buffer): number {
  let lines = 0;
  for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) lines++;
  return Math.max(lines, data.length > 0 ? 1 : 0);
}

let stdoutOutput: LogOutput | null = null;

/** The one output on stdout that every logger of this process shares, flushed once at exit. */
export function stdoutLogOutput(options: Omit<LogOutputOptions, 'fd' | 'writer'> = {}): LogOutput {
  if (!stdoutOutput) {
    stdoutOutput = new LogOutput({ ...options, fd: 1 });
    const output = stdoutOutput;
    process.once('exit', () => output.flushSync());
  }
  return stdoutOutput;
}

/** Counters of the stdout output (for /metrics); zero when nothing was logged yet. */
export function stdoutLogStats(): LogOutputStats {
  return stdoutOutput?.stats() ?? { droppedLines: 0, failing: null };
}
