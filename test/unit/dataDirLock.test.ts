import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDataDir } from '../../src/platform/store/dataDirLock.ts';

test('a live process holding the data directory keeps others out; release frees it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ct-lock-'));
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
  try {
    writeFileSync(join(dir, 'cloudtwin.lock'), String(sleeper.pid));
    assert.throws(() => lockDataDir(dir), /in use by process \d+; a SQLite data directory serves one process/);
    sleeper.kill('SIGKILL');
    await new Promise((r) => sleeper.on('exit', r));
    // The owner died (kill -9): its lock is taken over.
    const release = lockDataDir(dir);
    assert.equal(readFileSync(join(dir, 'cloudtwin.lock'), 'utf8'), String(process.pid));
    release();
    assert.equal(existsSync(join(dir, 'cloudtwin.lock')), false);
  } finally {
    sleeper.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
