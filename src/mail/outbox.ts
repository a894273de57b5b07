/**
 * Delivers the outbox table. Messages are written by the store in the same
 * transaction as the credit they announce; this sender delivers them right
 * after (kick), and a periodic timer retries failures with exponential backoff.
 * A sender claims a message with a lease before sending, so two senders (the
 * server and the admin CLI) never send the same message at the same time. A
 * sent message has its body blanked: a key does not linger in the database.
 */
import type { OutboxMessage, Store } from '../store/types.js';
import type { MailLog, MailSender } from './sender.js';

export interface OutboxOptions {
  /** How often the retry timer looks for due messages. Default 60 s. */
  retryIntervalMs?: number;
  /** Delay after the first failure; doubles with each further failure. Default 60 s. */
  backoffBaseMs?: number;
  /** Longest delay between two attempts. Default 6 h. */
  backoffMaxMs?: number;
  /** How long a claimed message stays reserved for the sender that claimed it. Default 5 min. */
  leaseMs?: number;
}

export interface DeliveryReport {
  sent: number;
  failed: number;
}

export class Outbox {
  private readonly retryIntervalMs: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<DeliveryReport> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    readonly sender: MailSender,
    private readonly log: MailLog,
    private readonly clock: () => Date = () => new Date(),
    options: OutboxOptions = {},
  ) {
    this.retryIntervalMs = options.retryIntervalMs ?? 60_000;
    this.backoffBaseMs = options.backoffBaseMs ?? 60_000;
    this.backoffMaxMs = options.backoffMaxMs ?? 6 * 3_600_000;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
  }

  /** Starts the periodic retry. */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => {
      void this.kick().catch((err) => this.log.warn({ err }, 'outbox retry failed'));
    }, this.retryIntervalMs);
    this.timer.unref();
  }

  /** Delivers every due message now. Runs one delivery at a time; a kick during a run makes it go round once more. */
  kick(): Promise<DeliveryReport> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      const total: DeliveryReport = { sent: 0, failed: 0 };
      try {
        do {
          this.again = false;
          const report = await this.deliverDue();
          total.sent += report.sent;
          total.failed += report.failed;
        } while (this.again && !this.closed);
      } finally {
        this.running = null;
      }
      return total;
    })();
    return this.running;
  }

  /** Makes every unsent message due now (ignoring backoff) and delivers. */
  async retryAll(): Promise<DeliveryReport> {
    await this.store.rescheduleMail(this.clock());
    return this.kick();
  }

  list(): Promise<OutboxMessage[]> {
    return this.store.listMail();
  }

  /** Backoff after `attempts` failures. */
  delayAfter(attempts: number): number {
    return Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
  }

  private async deliverDue(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0 };
    const seen = new Set<number>();
    for (;;) {
      const ids = (await this.store.dueMail(this.clock(), 20)).filter((id) => !seen.has(id));
      if (ids.length === 0 || this.closed) return report;
      for (const id of ids) {
        seen.add(id);
        if (this.closed) return report;
        const outcome = await this.deliverOne(id);
        if (outcome === 'sent') report.sent++;
        else if (outcome === 'failed') report.failed++;
      }
    }
  }

  private async deliverOne(id: number): Promise<'sent' | 'failed' | 'skipped'> {
    const now = this.clock();
    const message = await this.store.claimMail(id, now, new Date(now.getTime() + this.leaseMs));
    if (!message) return 'skipped';
    try {
      const sent = await this.sender.send({ to: message.to, subject: message.subject, text: message.body });
      await this.store.markMailSent(id, this.clock());
      this.log.info(
        { outboxId: id, kind: message.kind, to: message.to, messageId: sent.messageId, attempts: message.attempts + 1 },
        'e-mail sent',
      );
      return 'sent';
    } catch (err) {
      const attempts = message.attempts + 1;
      const delay = this.delayAfter(attempts);
      const error = err instanceof Error ? err.message : String(err);
      await this.store.markMailFailed(id, error, new Date(this.clock().getTime() + delay));
      this.log.warn(
        { outboxId: id, kind: message.kind, to: message.to, attempts, retryInMs: delay, error },
        'e-mail not sent; kept in the outbox for retry',
      );
      return 'failed';
    }
  }

  /** Stops the timer and waits for a delivery in progress. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    this.sender.close();
  }
}
