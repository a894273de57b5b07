/** The sandbox quotas subject: the test keys' calls per rolling minute and stops per Paris day. */
import type { PendingMark } from '../ledger/types.js';

export interface SandboxWindow {
  keyId: number;
  nowMs: number;
  /** Calls at or after this instant count toward the per-minute cap. */
  windowStartMs: number;
  /** The Paris calendar day (YYYY-MM-DD) whose stops count toward the daily cap. */
  day: string;
}

export interface SandboxUsage {
  callsInWindow: number;
  /** Instant of the oldest call still inside the window, if any. */
  oldestCallMs: number | null;
  stopsToday: number;
}

export interface SandboxReservationRequest extends SandboxWindow {
  requestId: string;
  /** Past `pending.untilMs` an unsettled reservation is released by the recovery sweep. */
  pending: PendingMark;
  stops: number;
  callsPerMinute: number;
  stopsPerDay: number;
}

export type SandboxReservationOutcome =
  | { ok: true; reservationId: number; usage: SandboxUsage }
  | { ok: false; exceeded: 'minute' | 'day'; usage: SandboxUsage };

export interface SandboxStore {
  sandboxUsage(window: SandboxWindow): Promise<SandboxUsage>;
  /** Checks both caps and records the call in one transaction. */
  reserveSandbox(request: SandboxReservationRequest): Promise<SandboxReservationOutcome>;
  /** A failed call: its stops are given back; the call itself still counts toward the per-minute cap. */
  releaseSandbox(reservationId: number): Promise<void>;
}
