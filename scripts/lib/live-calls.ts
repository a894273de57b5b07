/**
 * Live-key optimize traffic as a careful client sends it (an Idempotency-Key
 * that is also the request id, retries of unanswered calls with the same key),
 * and an audit of the ledger against what the clients saw. Shared by the
 * lease tests and the restart benchmark.
 */
import type { Store } from '../../src/store/types.js';
import { coordinateStops, PARIS_START } from './paris-stops.js';

export interface LogicalCall {
  id: string;
  stops: number;
  /** The last answer's status, or 'lost' when the connection failed before an answer. */
  status: number | 'lost';
  message?: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `ready` answers something other than false; fails after `ms` (a safety net, not a speed assertion). */
export async function until<T>(what: string, ms: number, ready: () => Promise<T | false>, everyMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await ready();
    if (value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

export class LiveClients {
  readonly calls = new Map<string, LogicalCall>();
  private sequence = 0;
  private random = 4242;

  constructor(
    private readonly key: string,
    private readonly prefix: string,
  ) {}

  async call(url: string, logical: LogicalCall): Promise<void> {
    try {
      const res = await fetch(`${url}/api/v1/optimize`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${this.key}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': logical.id,
          'X-Request-Id': logical.id,
        },
        body: JSON.stringify({ start: PARIS_START, stops: coordinateStops(logical.stops, logical.stops * 7 + 1) }),
      });
      const body = (await res.json()) as { message?: string };
      logical.status = res.status;
      logical.message = body.message;
    } catch {
      logical.status = 'lost';
    }
  }

  /** `count` clients calling the `urls` in turn until stop() resolves. */
  load(urls: () => string[], count: number): { stop(): Promise<void> } {
    let stopping = false;
    const workers = Array.from({ length: count }, async (_, w) => {
      while (!stopping) {
        this.random = (this.random * 1103515245 + 12345) % 2147483648;
        const logical: LogicalCall = {
          id: `${this.prefix}-${this.sequence++}`,
          stops: 2 + (this.random % 25),
          status: 'lost',
        };
        this.calls.set(logical.id, logical);
        const targets = urls();
        await this.call(targets[(this.sequence + w) % targets.length], logical);
      }
    });
    return {
      async stop() {
        stopping = true;
        await Promise.all(workers);
      },
    };
  }

  /** Calls without a final answer: unanswered, or 409 while the first attempt's instance still held its Idempotency-Key. */
  unanswered(): LogicalCall[] {
    return [...this.calls.values()].filter((c) => c.status === 'lost' || c.status === 409);
  }

  /** Retries unanswered calls with the same key until each has a final answer. */
  async retryUnanswered(url: string, timeoutMs = 60_000): Promise<void> {
    await until(
      'every call to have a final answer',
      timeoutMs,
      async () => {
        const open = this.unanswered();
        for (const c of open) await this.call(url, c);
        return open.length === 0;
      },
      250,
    );
  }
}

export interface LedgerAudit {
  /** Calls that answered 200. */
  answered: number;
  /** Stops those calls cost. */
  charged: number;
  /** Every way the ledger disagrees with what the clients saw; empty when exact. */
  problems: string[];
}

/** Every call that answered 200 is debited exactly once, every other not at all, no debit is refunded twice, balance = ledger sum. */
export async function auditLedger(
  store: Store,
  keyId: number,
  initial: number,
  calls: Iterable<LogicalCall>,
): Promise<LedgerAudit> {
  const ledger = await store.ledger(keyId);
  const net = new Map<string, number>();
  const refundsOf = new Map<number, number>();
  for (const e of ledger) {
    // calls are matched by the X-Request-Id they sent, which the ledger keeps as clientRequestId
    if (e.clientRequestId) net.set(e.clientRequestId, (net.get(e.clientRequestId) ?? 0) + e.delta);
    if (e.refundOf !== null) refundsOf.set(e.refundOf, (refundsOf.get(e.refundOf) ?? 0) + 1);
  }
  const problems: string[] = [];
  for (const [debit, n] of refundsOf) if (n !== 1) problems.push(`debit ${debit} refunded ${n} times`);
  let answered = 0;
  let charged = 0;
  for (const c of calls) {
    const debited = -(net.get(c.id) ?? 0);
    if (c.status === 200) {
      answered++;
      charged += c.stops;
      if (debited !== c.stops) problems.push(`${c.id} answered 200 but is debited ${debited} of its ${c.stops} stops`);
    } else if (debited !== 0) {
      problems.push(`${c.id} ended with ${c.status} but is debited ${debited} stops`);
    }
  }
  const balance = (await store.listKeys()).find((k) => k.id === keyId)?.balance;
  if (balance !== initial - charged) problems.push(`balance ${balance}, expected ${initial - charged}`);
  const sum = ledger.reduce((s, e) => s + e.delta, 0);
  if (sum !== balance) problems.push(`ledger sums to ${sum}, balance is ${balance}`);
  return { answered, charged, problems };
}
