/**
 * `cloudtwin exec [serve options] -- COMMAND...`: a server around a command, for test suites in
 * any language (as `firebase emulators:exec` does for Firebase's). It starts the server (in memory
 * and on a free port unless the options name a store or a port), waits until it is ready, runs
 * the command with where the server is in its environment (CLOUDTWIN_URL, CLOUDTWIN_ADMIN_TOKEN,
 * CLOUDTWIN_HOST, CLOUDTWIN_PORT and gcloud's endpoint overrides), passes SIGINT, SIGTERM and
 * SIGHUP on to it, and when it ends stops the server (drained) and exits as the command did: its
 * exit status, or killed by the same signal. The server's log is kept (its last 4 MB) and printed
 * to stderr only when the command failed. Imported only when `exec` runs.
 */
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { gcloudEnvironment } from '../platform/http/gcloudEnvironment.ts';
import { reachableHost } from '../platform/transport/listener.ts';
import type { RunningCloudtwin } from '../start.ts';
import type { LogSink } from './logFormat.ts';
import { startFromSettings, wildcardNote } from './serve.ts';
import { type ServeSettings, readServeSettings, startFailure } from './serveOptions.ts';

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The most of the server's log kept for a failed command (the newest records). */
const LOG_TAIL_BYTES = 4 << 20;

/** The newest records of the server's log, up to a size. */
class LogTail implements LogSink {
  readonly records: string[] = [];
  dropped = 0;
  #bytes = 0;

  write(text: string): void {
    this.records.push(text);
    this.#bytes += text.length;
    while (this.#bytes > LOG_TAIL_BYTES && this.records.length > 1) {
      this.#bytes -= this.records.shift()!.length;
      this.dropped++;
    }
  }
}

/** The environment the command runs with: this process's, and where the server is. */
export function commandEnvironment(running: RunningCloudtwin, settings: ServeSettings, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    CLOUDTWIN_URL: running.url,
    CLOUDTWIN_ADMIN_TOKEN: running.twin.adminToken,
    CLOUDTWIN_HOST: reachableHost(settings.host),
    CLOUDTWIN_PORT: String(running.port),
    ...gcloudEnvironment(running.url),
  };
}

/** The `exec` command's action. */
export async function runExec(cmd: Command, command: string[]): Promise<void> {
  const log = new LogTail();
  let settings: ServeSettings;
  let running: RunningCloudtwin;
  try {
    settings = readServeSettings(cmd, { memoryUnlessStored: true });
    running = await startFromSettings(settings, log);
  } catch (err) {
    const failure = startFailure(cmd, err);
    process.stderr.write(`${failure.line}\n`);
    process.exit(failure.exitCode);
  }
  const store = settings.databaseUrl !== undefined ? 'PostgreSQL' : settings.dataDir !== undefined ? `data directory ${settings.dataDir}` : 'in memory';
  process.stderr.write(`cloudtwin exec: cloudtwin at ${running.url}${wildcardNote(settings.host)} (${store}); running ${command.join(' ')}\n`);

  const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env: commandEnvironment(running, settings) });
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);

  const ended = await new Promise<{ status: number; signal?: NodeJS.Signals; why: string }>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      // As a shell says it: 127 for a command that is not there, 126 for one that cannot run.
      const status = err.code === 'ENOENT' ? 127 : 126;
      resolve({ status, why: err.code === 'ENOENT' ? `${command[0]}: command not found` : `${command[0]}: ${err.message}` });
    });
    child.once('exit', (code, signal) => {
      if (signal) resolve({ status: 128, signal, why: `${command[0]} was killed by ${signal}` });
      else resolve({ status: code ?? 1, why: `${command[0]} exited with status ${code}` });
    });
  });

  running.twin.app.log.info({ status: ended.signal ?? ended.status }, 'command ended; draining');
  await running.stop();
  if (ended.status !== 0) {
    process.stderr.write(`cloudtwin exec: ${ended.why}; the server's log follows${log.dropped ? ` (its first ${log.dropped} records are not kept)` : ''}\n`);
    for (const record of log.records) process.stderr.write(record);
  }
  for (const signal of FORWARDED) process.off(signal, forward);
  if (ended.signal) {
    // End the way the command ended, so that a caller sees the same signal.
    process.kill(process.pid, ended.signal);
    // A signal this process ignores (SIGPIPE): the shell's way of saying it instead.
    setTimeout(() => process.exit(128 + (constants.signals[ended.signal!] ?? 0)), 100);
    return;
  }
  process.exit(ended.status);
}
