import type { Progress } from './bulk.ts';

/** Below this much time in a phase, a rate is noise (a first tick 1 ms in would claim millions a second). */
const MIN_RATE_SECONDS = 0.25;

/**
 * The rate of a phase: what was done since the phase began, over the time since it began. A
 * phase begins when the previous one ended (its last tick), the first when the bar was made,
 * not at its own first tick, which comes only after the first batch is already done.
 */
export class PhaseRate {
  #phase = '';
  #start: number;
  #last: number;

  constructor(now: number = performance.now()) {
    this.#start = now;
    this.#last = now;
  }

  /** Records a tick; the rate per second so far in this phase, or undefined while too early to tell. */
  tick(p: Progress, now: number = performance.now()): { newPhase: boolean; perSecond: number | undefined } {
    const newPhase = p.phase !== this.#phase;
    if (newPhase) {
      if (this.#phase) this.#start = this.#last;
      this.#phase = p.phase;
    }
    this.#last = now;
    const seconds = (now - this.#start) / 1000;
    return { newPhase, perSecond: seconds < MIN_RATE_SECONDS ? undefined : Math.round(p.done / seconds) };
  }
}

/** A progress bar on stderr with rate and ETA (none when stderr is not a terminal or with --no-progress). */
export function progressBar(cliProgress: typeof import('cli-progress'), o: { progress?: boolean }, unit: string): { update: (p: Progress) => void; stop: () => void } {
  if (o.progress === false || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `{phase} [{bar}] {percentage}% | {value}/{total} ${unit} | {speed}/s | ETA {eta_formatted}`, stream: process.stderr, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  const rate = new PhaseRate();
  let started = false;
  return {
    update: (p) => {
      const { newPhase, perSecond } = rate.tick(p);
      const speed = perSecond === undefined ? '-' : perSecond.toLocaleString('en-US');
      if (newPhase && started) {
        bar.stop();
        started = false;
      }
      if (!started) {
        bar.start(Math.max(p.total, p.done), p.done, { phase: p.phase, speed });
        started = true;
      } else {
        bar.setTotal(Math.max(p.total, p.done));
        bar.update(p.done, { phase: p.phase, speed });
      }
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
