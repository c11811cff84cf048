import { type ChildProcess, spawn } from 'node:child_process';

export interface ReadyProcess {
  proc: ChildProcess;
  /** The ready line's match. */
  ready: RegExpExecArray;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited: its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `cmd args` (stdout and stderr captured) and resolves once stdout matches `ready`;
 * rejects with the output if it exits first or is not ready within 30 s. A process still
 * running after `killAfterMs` (default 120 s) is killed, so a failed test leaves nothing behind.
 */
export async function spawnReady(cmd: string, args: string[], ready: RegExp, opts: { env?: NodeJS.ProcessEnv; cwd?: string; killAfterMs?: number } = {}): Promise<ReadyProcess> {
  const proc = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const kill = setTimeout(() => proc.kill('SIGKILL'), opts.killAfterMs ?? 120_000);
  kill.unref();
  void exited.then(() => clearTimeout(kill));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in 30 s:\n${out}\n${err}`)), 30_000);
    proc.stdout!.on('data', () => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    void exited.then((x) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited (${x.code ?? x.signal}) before it was ready:\n${out}\n${err}`));
    });
  });
  return { proc, ready: match, stdout: () => out, stderr: () => err, exited };
}
