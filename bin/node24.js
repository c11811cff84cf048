// Runs a TypeScript entry point on Node >= 24 (which strips types natively). On an older Node it
// re-runs the same command under Node 24 fetched from the npm registry (`npx -p node@24`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export async function runOnNode24(entryUrl, args) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 24) {
    await import(entryUrl);
    return;
  }
  process.stderr.write(`cloudtwin needs Node >= 24 (this is ${process.version}); running it with node@24 from the npm registry\n`);
  const r = spawnSync('npx', ['--yes', '-p', 'node@24', '--', 'node', fileURLToPath(entryUrl), ...args], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
