import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_DIST } from '../../src/console/plugin.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The newest modification time (ms) of the console's sources (console/ but its build output). */
function newestSource(dir = join(ROOT, 'console')): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'dist' || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The console's build output; built when missing or older than its sources (`npm ci` builds it
 * through `prepare`; a source edited since would otherwise be tested as it was). Suites running
 * at once build it once: the first takes a lock directory, the others wait for it.
 */
export function ensureConsoleBuilt(): string {
  const dist = fileURLToPath(CONSOLE_DIST);
  const index = `${dist}index.html`;
  const fresh = () => existsSync(index) && statSync(index).mtimeMs >= newestSource();
  if (fresh()) return dist;
  const lock = join(ROOT, 'console', '.build-lock');
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - started > 120_000) throw new Error(`the console build lock ${lock} was held for 2 minutes: remove it if no build runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      if (fresh()) return dist;
    }
  }
  try {
    if (!fresh()) {
      const r = spawnSync('npm', ['run', 'build:console'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`npm run build:console failed:\n${r.stdout}\n${r.stderr}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return dist;
}
