/**
 * The one source of "now" for resource time (deletion windows, quota days, operation timing).
 * Credential expiry is judged by the wall clock instead, so advancing this clock never logs a
 * client out. The offset is shared by every process on one store (see `settings.ts`).
 */
export class Clock {
  #offsetMs = 0;

  nowMs(): number {
    return Date.now() + this.#offsetMs;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  setOffsetMs(offsetMs: number): void {
    this.#offsetMs = offsetMs;
  }
}

/** RFC 3339 with millisecond precision, UTC, as Google's JSON timestamps are written. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

export const DAY_MS = 24 * 60 * 60 * 1000;
