/** Time rules of the sandbox quotas: a rolling 60-second window and the Europe/Paris calendar day. */
import { DateTime } from 'luxon';
import { PARIS_ZONE as PARIS } from '../schedule/time.js';

export const MINUTE_MS = 60_000;

export function parisDay(nowMs: number): string {
  return DateTime.fromMillis(nowMs, { zone: PARIS }).toISODate()!;
}

/** The instant the Paris day containing `nowMs` ends (next Paris midnight), in ms. */
export function nextParisMidnightMs(nowMs: number): number {
  return DateTime.fromMillis(nowMs, { zone: PARIS }).startOf('day').plus({ days: 1 }).toMillis();
}

/** First instant that still belongs to the rolling minute ending at `nowMs`. */
export const minuteWindowStart = (nowMs: number): number => nowMs - MINUTE_MS + 1;
