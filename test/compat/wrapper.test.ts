/**
 * The process a user starts is the process that stops: `bin/cloudtwin.js` run by a Node older
 * than 24 re-runs cloudtwin under Node 24 as a child; SIGTERM/SIGINT/SIGHUP sent to the
 * wrapper's PID drain the server and free its port and data directory, and the wrapper ends as
 * the child ended. `npm start` and `npx cloudtwin serve` behave the same when npm's PID is signalled.
 *
 * The old-Node cases need a Node < 24 on the machine (CI: the system node); they are skipped,
 * saying so, where there is none.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnReady } from '../support/spawnReady.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'cloudtwin.js');
const READY = /^cloudtwin listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
const ADMIN = 'wrapper-admin-token';
const NODE24_DIR = dirname(process.execPath);

/** A node binary older than 24 on this machine (the system one, or another on PATH), if any. */
function findOldNode(): string | undefined {
  const self = realpathSync(process.execPath);
  const dirs = ['/usr/bin', '/usr/local/bin', '/bin', ...(process.env.PATH ?? '').split(delimiter)];
  for (const dir of new Set(dirs)) {
    const candidate = join(dir, 'node');
    if (!dir || !existsSync(candidate) || realpathSync(candidate) === self) continue;
    const r = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0 && Number(r.stdout.split('.')[0]) < 24) return candidate;
  }
  return undefined;
}

const OLD_NODE = findOldNode();
const SKIP_OLD = OLD_NODE ? false : 'no Node older than 24 on this machine: the wrapper re-run path cannot be exercised';
if (!OLD_NODE) process.stdout.write(`# skipping the old-Node wrapper tests: ${SKIP_OLD}\n`);

interface Started {
  proc: ChildProcess;
  url: string;
  out(): string;
  err(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment without CLOUDTWIN_* settings, with `firstOnPath` leading PATH and Node 24 reachable after it. */
function env(firstOnPath?: string): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_') && !k.startsWith('npm_')));
  const path = [firstOnPath, NODE24_DIR, process.env.PATH].filter(Boolean).join(delimiter);
  // One master key for every server of the run: on PostgreSQL they share a database.
  return { ...base, PATH: path, CLOUDTWIN_MASTER_KEY: Buffer.alloc(32, 5).toString('base64') };
}

async function start(cmd: string, args: string[], e: NodeJS.ProcessEnv): Promise<Started> {
  const p = await spawnReady(cmd, args, READY, { cwd: ROOT, env: e });
  return { proc: p.proc, url: p.ready[1], out: p.stdout, err: p.stderr, exited: p.exited };
}

/** The PIDs of `pid`'s children (Linux /proc), or [] elsewhere. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** All descendants of `pid` (npm -> sh -> wrapper -> server). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const c of childrenOf(pid)) out.push(c, ...descendants(c));
  return out;
}

/**
 * Sends `signal` to `started` while a burst of requests is in flight, then checks that the
 * server drained (the log says so, every answer is 200 or a refused connection), that nothing
 * it started is left, that the port is free and that the SQLite data directory is unlocked.
 */
async function stopsCleanly(s: Started, signal: NodeJS.Signals, dataDir: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const tree = descendants(s.proc.pid!);
  const burst = Array.from({ length: 20 }, () =>
    fetch(`${s.url}/_twin/v1/health`).then(
      (r) => r.status,
      () => 'refused' as const,
    ),
  );
  await new Promise((r) => setTimeout(r, 5));
  s.proc.kill(signal);
  const statuses = await Promise.all(burst);
  const end = await s.exited;
  assert.ok(statuses.every((x) => x === 200 || x === 'refused'), `statuses: ${statuses.join(',')}`);
  for (let i = 0; i < 50 && tree.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(tree.filter(alive), [], 'no process of the tree is left running');
  await new Promise((r) => setTimeout(r, 50));
  // The server logged its drain (pino JSON on stderr), naming the signal it got.
  assert.match(s.err(), new RegExp(`"signal":"(${signal}|SIGTERM)","msg":"draining"`), s.err());
  await assert.rejects(fetch(`${s.url}/_twin/v1/health`), 'the port is free');
  assert.equal(existsSync(join(dataDir, 'cloudtwin.lock')), false, 'the data directory is unlocked');
  return end;
}

/** A fresh database (PostgreSQL runs) and scratch directory for one describe block. */
function scratch(prefix: string): { dir(): string; serverArgs(dataDir: string): string[] } {
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    db = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });
  return {
    dir: () => dir,
    serverArgs: (dataDir) => ['--port', '0', '--data-dir', dataDir, '--admin-token', ADMIN, ...(db.url ? ['--database-url', db.url] : [])],
  };
}

describe('bin/cloudtwin.js on a Node older than 24', { skip: SKIP_OLD }, () => {
  const box = scratch('cloudtwin-wrapper-');
  const serveArgs = (dataDir: string) => [BIN, 'serve', ...box.serverArgs(dataDir)];

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal} to the wrapper's PID drains the Node 24 server and the wrapper exits 0`, async () => {
      const dataDir = join(box.dir(), signal);
      const s = await start(OLD_NODE!, serveArgs(dataDir), env());
      const kids = childrenOf(s.proc.pid!);
      assert.equal(kids.length, 1, 'the wrapper runs the server as its one child');
      assert.match(readFileSync(`/proc/${kids[0]}/cmdline`, 'utf8'), /bin\/cloudtwin\.js/);
      assert.notEqual(realpathSync(`/proc/${kids[0]}/exe`), realpathSync(OLD_NODE!), 'the child runs a Node 24');
      // A Node 24 on the machine is used as it is: no registry round trip on start.
      assert.doesNotMatch(s.err(), /npm registry/);
      const end = await stopsCleanly(s, signal, dataDir);
      assert.deepEqual(end, { code: 0, signal: null });
    });
  }

  it('ends as its child ends: killed by the same signal', async () => {
    const s = await start(OLD_NODE!, serveArgs(join(box.dir(), 'killed')), env());
    const [server] = childrenOf(s.proc.pid!);
    process.kill(server, 'SIGKILL');
    assert.deepEqual(await s.exited, { code: null, signal: 'SIGKILL' });
  });

  it("ends as its child ends: the child's exit code", async () => {
    const r = spawnSync(OLD_NODE!, [BIN, 'serve', '--port', '70000'], { cwd: ROOT, env: env(), encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--port 70000: not a port/);
  });

  it('npx cloudtwin on the old Node prints no npm warning before its output (.npmrc)', { skip: SKIP_OLD }, () => {
    const r = spawnSync('npx', ['cloudtwin', '--version'], { cwd: ROOT, env: env(dirname(OLD_NODE!)), encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
    assert.doesNotMatch(r.stderr, /EBADENGINE|npm warn/);
  });

  it('prefers $CLOUDTWIN_NODE, and says so plainly when it cannot run it', () => {
    const r = spawnSync(OLD_NODE!, [BIN, '--version'], { cwd: ROOT, env: { ...env(), CLOUDTWIN_NODE: join(box.dir(), 'no-such-node') }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 127);
    assert.match(r.stderr, /cannot run .*no-such-node/);
    const ok = spawnSync(OLD_NODE!, [BIN, '--version'], { cwd: ROOT, env: { ...env(), CLOUDTWIN_NODE: process.execPath }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^\d+\.\d+\.\d+/);
  });
});

describe('npm start and npx cloudtwin serve: signalling npm stops the server', () => {
  const box = scratch('cloudtwin-npm-');
  // With the old Node first on PATH where there is one (npm then runs the wrapper), else Node 24.
  const pathFirst = OLD_NODE ? dirname(OLD_NODE) : undefined;

  it('npm start: SIGTERM to npm drains the server; npm exits 0', async () => {
    const dataDir = join(box.dir(), 'start');
    const s = await start('npm', ['start', '--silent', '--', ...box.serverArgs(dataDir)], env(pathFirst));
    const end = await stopsCleanly(s, 'SIGTERM', dataDir);
    assert.deepEqual(end, { code: 0, signal: null });
  });

  it('npx cloudtwin serve: SIGTERM to npx drains the server', async () => {
    const dataDir = join(box.dir(), 'npx');
    // --no: the project's own bin, never a download.
    const s = await start('npx', ['--no', 'cloudtwin', 'serve', ...box.serverArgs(dataDir)], env(pathFirst));
    const end = await stopsCleanly(s, 'SIGTERM', dataDir);
    // npm itself ends by the signal it got (143); what matters is that nothing is left.
    assert.ok(end.code === 143 || end.signal === 'SIGTERM' || end.code === 0, JSON.stringify(end));
  });
});
