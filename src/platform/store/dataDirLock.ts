import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process per SQLite data directory: SQLite serialises the writers of one process, which is
 * what keeps limits exact under concurrency; several processes need PostgreSQL. The lock is a
 * file holding the owner's pid; a lock left by a process that died (kill -9) is taken over.
 * Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'cloudtwin.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(readFileSync(file, 'utf8').trim());
      } catch {
        // removed meanwhile: try again
      }
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new Error(`the data directory ${dir} is in use by process ${owner}; a SQLite data directory serves one process (use --database-url for several)`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock the data directory ${dir}`);
}
