import type { Logger } from 'pino';

/** The log levels used here (pino's; the HTTP layer's logger is one, so is any pino logger). */
export type Log = Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;

export interface BackgroundTask {
  name: string;
  run(): Promise<unknown>;
}

/**
 * Runs the background tasks (due operations, shared clock and settings, sweeps) on a fixed
 * tick. Ticks never overlap; a failing task is logged and retried on the next tick.
 */
export class Worker {
  readonly #tasks: BackgroundTask[];
  readonly #intervalMs: number;
  readonly #log: Log;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(tasks: BackgroundTask[], intervalMs: number, log: Log) {
    this.#tasks = tasks;
    this.#intervalMs = intervalMs;
    this.#log = log;
  }

  start(): void {
    this.#timer ??= setInterval(() => {
      this.#running ??= this.tick().finally(() => {
        this.#running = undefined;
      });
    }, this.#intervalMs);
  }

  async tick(): Promise<void> {
    for (const t of this.#tasks) {
      try {
        await t.run();
      } catch (err) {
        this.#log.warn({ err, task: t.name }, 'background task failed');
      }
    }
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
