/**
 * Quota days run from midnight to midnight in America/Los_Angeles (Pacific time, daylight
 * saving included), as Google's daily quotas do. Computed with `Intl`, from resource time.
 */
import { pacificOffsetMinutes } from '../clock/pacific.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of the Pacific calendar day containing `ms`. */
export function pacificDay(ms: number): string {
  const d = new Date(ms + pacificOffsetMinutes(ms) * 60_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Epoch ms of the first Pacific midnight after `ms`: when the quota day containing `ms` ends. */
export function nextPacificMidnight(ms: number): number {
  const [y, mo, d] = pacificDay(ms).split('-').map(Number);
  const midnightUtc = Date.UTC(y, mo - 1, d + 1);
  // Local midnight = UTC midnight minus the offset in force then; the offset can change that
  // night (DST starts and ends at 02:00, so at midnight the day's own offset still holds).
  let guess = midnightUtc - pacificOffsetMinutes(midnightUtc) * 60_000;
  guess = midnightUtc - pacificOffsetMinutes(guess) * 60_000;
  return guess;
}
