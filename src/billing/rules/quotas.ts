/** The sandbox and console quota rules, as pure functions over counts the stores read. */

export interface SandboxCounts {
  callsInWindow: number;
  stopsToday: number;
}

export interface SandboxCaps {
  stops: number;
  callsPerMinute: number;
  stopsPerDay: number;
}

/** Sandbox rows older than this can never count again (a rolling minute, a Paris day): the store prunes them. */
export const SANDBOX_ROW_RETENTION_MS = 2 * 86_400_000;

/** The per-minute cap first (a call counts whatever its outcome), then the day's stops (a call is refused whole). */
export function decideSandboxReservation(
  usage: SandboxCounts,
  caps: SandboxCaps,
): { ok: true } | { ok: false; exceeded: 'minute' | 'day' } {
  if (usage.callsInWindow >= caps.callsPerMinute) return { ok: false, exceeded: 'minute' };
  if (usage.stopsToday + caps.stops > caps.stopsPerDay) return { ok: false, exceeded: 'day' };
  return { ok: true };
}

/** Console test-key requests counted since the window start, with the oldest one's instant. */
export interface RequestCount {
  n: number;
  oldest: number | null;
}

/** Per client address first, then per e-mail; a refusal tells when the oldest counted request leaves the window. */
export function decideConsoleIssue(
  byIp: RequestCount,
  byEmail: RequestCount,
  limits: { maxPerIp: number; maxPerEmail: number; nowMs: number },
): { ok: true } | { ok: false; exceeded: 'ip' | 'email'; oldestMs: number } {
  if (byIp.n >= limits.maxPerIp) return { ok: false, exceeded: 'ip', oldestMs: byIp.oldest ?? limits.nowMs };
  if (byEmail.n >= limits.maxPerEmail)
    return { ok: false, exceeded: 'email', oldestMs: byEmail.oldest ?? limits.nowMs };
  return { ok: true };
}
