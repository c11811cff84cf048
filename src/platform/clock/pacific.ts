/** Google's Pacific time: quota days end at its midnight; Compute writes its timestamps in it. */
export const PACIFIC_TIME_ZONE = 'America/Los_Angeles';

// Made on first use: building it loads ICU's time-zone data (~15 ms), a start-up cost otherwise.
let offsetFormat: Intl.DateTimeFormat | undefined;
/** Pacific offset (minutes) per UTC hour: offsets change only on whole UTC hours, and Intl is slow on hot paths. */
const offsets = new Map<number, number>();

/** Pacific offset from UTC at `ms`, in minutes (-480 in winter, -420 in summer). */
export function pacificOffsetMinutes(ms: number): number {
  const hour = Math.floor(ms / 3_600_000);
  let off = offsets.get(hour);
  if (off === undefined) {
    offsetFormat ??= new Intl.DateTimeFormat('en-US', { timeZone: PACIFIC_TIME_ZONE, timeZoneName: 'longOffset' });
    const name = offsetFormat.formatToParts(hour * 3_600_000).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
    const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
    off = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
    if (offsets.size > 10_000) offsets.clear();
    offsets.set(hour, off);
  }
  return off;
}
