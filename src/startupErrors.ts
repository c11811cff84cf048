/** The start options a start-up error can be about; the CLI names them by their flag or variable. */
export type StartOption = 'host' | 'port' | 'dataDir' | 'databaseUrl' | 'world';

/**
 * A start that cannot go on, as one line for the user: what is wrong and what is expected. The
 * CLI prints it after the flag or environment variable it is about (`--world FILE: ...`) and
 * exits with `exitCode`: 2 for a usage error (a value that can never work), 1 otherwise (a port
 * in use, a database that does not answer).
 */
export class StartupError extends Error {
  readonly exitCode: 1 | 2;
  readonly option: StartOption | undefined;

  constructor(message: string, opts: { exitCode?: 1 | 2; option?: StartOption; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'StartupError';
    this.exitCode = opts.exitCode ?? 1;
    this.option = opts.option;
  }
}
