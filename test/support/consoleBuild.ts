import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONSOLE_DIST } from '../../src/console/plugin.ts';

/** The console's build output; built once when missing (`npm ci` builds it through `prepare`). */
export function ensureConsoleBuilt(): string {
  const dist = fileURLToPath(CONSOLE_DIST);
  if (!existsSync(`${dist}index.html`)) {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const r = spawnSync('npm', ['run', 'build:console'], { cwd: root, stdio: 'pipe', encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build:console failed:\n${r.stdout}\n${r.stderr}`);
  }
  return dist;
}
