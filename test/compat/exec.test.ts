/**
 * `cloudtwin exec [serve options] -- COMMAND...`, driven as a user would: a separate process
 * running a command (a small Node program, test/support/execProbe.mjs, standing in for a test
 * suite) that reports what it saw. The command gets where the server is in its environment; the
 * server is in memory on a free port unless the options say otherwise; signals reach the
 * command; the server stops drained when the command ends; exec exits as the command did and
 * prints the server's log only when it failed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/http.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { testWorld } from '../support/world.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));
const PROBE = fileURLToPath(new URL('../support/execProbe.mjs', import.meta.url));

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The environment exec sees: ours without any CLOUDTWIN_* or gcloud override setting, plus `env`. */
function childEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_') && !k.startsWith('CLOUDSDK_API_ENDPOINT_OVERRIDES_')));
  return { ...base, ...env };
}

/**
 * Runs `cloudtwin exec ARGS` in `cwd`; `whenStdout` is called once with the process when its
 * stdout first matches (to send it signals). Killed after 60 s.
 */
function exec(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; whenStdout?: [RegExp, (pid: number) => void] }): Promise<Ran> {
  const started = Date.now();
  const proc = spawn(process.execPath, [BIN, 'exec', ...args], { cwd: opts.cwd, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let called = false;
  proc.stdout!.on('data', (d) => {
    stdout += d;
    if (opts.whenStdout && !called && opts.whenStdout[0].test(stdout)) {
      called = true;
      opts.whenStdout[1](proc.pid!);
    }
  });
  proc.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      // the pipes may still hold the last output
      setImmediate(() => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
    }),
  );
}

const probe = (...args: string[]) => ['--', process.execPath, PROBE, ...args];
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

async function waitForFile(file: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`${file} did not appear in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('cloudtwin exec: the command and the server it runs around', () => {
  let dir: string;
  let db: TestDatabase;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-exec-'));
    writeFileSync(join(dir, 'world.json'), JSON.stringify(testWorld));
    db = await freshDatabase();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });

  it('gives the command CLOUDTWIN_URL, CLOUDTWIN_ADMIN_TOKEN, CLOUDTWIN_HOST, CLOUDTWIN_PORT and gcloud\'s endpoint overrides; in memory, on a free port; exit 0 and no log', async () => {
    const cwd = mkdtempSync(join(dir, 'defaults-'));
    const out = join(cwd, 'report.json');
    const r = await exec(probe('report', out), { cwd });
    assert.equal(r.code, 0, r.stderr);
    const seen = readJson(out);
    const url = seen.env.CLOUDTWIN_URL;
    const m = /^http:\/\/127\.0\.0\.1:(\d+)$/.exec(url);
    assert.ok(m, url);
    assert.notEqual(m[1], '8080', 'a free port, not the default one');
    assert.equal(seen.env.CLOUDTWIN_HOST, '127.0.0.1');
    assert.equal(seen.env.CLOUDTWIN_PORT, m[1]);
    assert.equal(seen.env.CLOUDSDK_API_ENDPOINT_OVERRIDES_APIKEYS, `${url}/`);
    assert.equal(seen.env.CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE, `${url}/compute/v1/`);
    assert.match(seen.env.CLOUDTWIN_ADMIN_TOKEN, /^ctadm_/);
    assert.deepEqual(seen.health, { status: 200, store: 'sqlite-memory' }, 'ready before the command starts, in memory');
    assert.equal(seen.adminStatus, 200, 'CLOUDTWIN_ADMIN_TOKEN opens the admin API');
    assert.deepEqual(readdirSync(cwd), ['report.json'], 'nothing written to disk');
    assert.match(r.stderr, new RegExp(`^cloudtwin exec: cloudtwin at ${url} \\(in memory\\); running `, 'm'));
    assert.doesNotMatch(r.stderr, /request completed/, 'the server log is printed only when the command fails');
    await assert.rejects(fetch(`${url}/_twin/v1/health`), 'the server stopped with the command');
  });

  it('serve options and their variables apply: --world, --port, a data directory (or PostgreSQL) kept from one run to the next, --admin-token', async () => {
    const cwd = mkdtempSync(join(dir, 'options-'));
    writeFileSync(join(cwd, 'world.json'), JSON.stringify(testWorld));
    const port = await freePort();
    const store = db.url ? ['--database-url', db.url] : [];
    const first = await exec(['--world', 'world.json', '--port', String(port), '--data-dir', 'state', ...store, ...probe('create-key', join(cwd, 'first.json'), 'kept')], {
      cwd,
      env: { CLOUDTWIN_ADMIN_TOKEN: 'exec-admin-token' },
    });
    assert.equal(first.code, 0, first.stderr);
    const created = readJson(join(cwd, 'first.json'));
    assert.equal(created.env.CLOUDTWIN_URL, `http://127.0.0.1:${port}`);
    assert.equal(created.env.CLOUDTWIN_ADMIN_TOKEN, 'exec-admin-token');
    assert.match(created.keyString, /^AIza[0-9A-Za-z_-]{35}$/);
    assert.equal(created.health.store, TEST_STORE === 'postgres' ? 'postgres' : 'sqlite');
    assert.ok(existsSync(join(cwd, 'state', 'master.key')), 'the data directory is used');
    const second = await exec(['--data-dir', 'state', ...store, ...probe('list-keys', join(cwd, 'second.json'))], { cwd, env: { CLOUDTWIN_ADMIN_TOKEN: 'exec-admin-token' } });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(readJson(join(cwd, 'second.json')).keys, ['kept'], 'the key of the first run is there in the second');
  });

  it('exits with the command\'s status and then prints the server\'s log on stderr', async () => {
    const r = await exec(probe('fail', '7'), { cwd: dir });
    assert.equal(r.code, 7);
    assert.match(r.stderr, /^cloudtwin exec: \S+ exited with status 7; the server's log follows$/m);
    assert.match(r.stderr, /^\{.*"url":"\/_twin\/v1\/health".*"msg":"request completed"\}$/m, 'the log records the command\'s request, as JSON lines');
    const pretty = await exec(['--log-format', 'pretty', ...probe('fail', '3')], { cwd: dir });
    assert.equal(pretty.code, 3);
    assert.match(pretty.stderr, /^\d\d:\d\d:\d\d\.\d{3} INFO  request completed reqId=\S+ method=GET url=\/_twin\/v1\/health status=200 /m);
  });

  it('a command that is not there: exit 127 and why, as a shell says it', async () => {
    const r = await exec(['--', 'no-such-command-cloudtwin'], { cwd: dir });
    assert.equal(r.code, 127);
    assert.match(r.stderr, /^cloudtwin exec: no-such-command-cloudtwin: command not found; the server's log follows$/m);
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal} sent to exec reaches the command; exec exits as the command did`, async () => {
      const r = await exec(probe('trap'), { cwd: dir, whenStdout: [/^trapping$/m, (pid) => process.kill(pid, signal)] });
      assert.match(r.stdout, new RegExp(`^got ${signal}$`, 'm'));
      assert.equal(r.code, 0, r.stderr);
    });
  }

  it('a command killed by a signal: exec ends killed by the same signal', async () => {
    const r = await exec(probe('kill-self', 'SIGKILL'), { cwd: dir });
    assert.equal(r.signal, 'SIGKILL');
    assert.match(r.stderr, /was killed by SIGKILL; the server's log follows/);
  });

  it('stops the server drained when the command ends: a request still in flight gets its answer', async () => {
    const out = join(dir, 'slow.json');
    const r = await exec(['--world', join(dir, 'world.json'), ...probe('leave-slow-request', out)], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    await waitForFile(out);
    const slow = readJson(out);
    assert.equal(slow.status, 200, 'the request running when the command ended was answered');
    assert.ok(r.ms >= 1000, `exec waited for it (${r.ms} ms)`);
    await assert.rejects(fetch(`${slow.url}/_twin/v1/health`), 'then the server stopped');
  });

  it('options after the command are the command\'s: `cloudtwin exec node probe.mjs fail 5` (no --)', async () => {
    const r = await exec([process.execPath, PROBE, 'fail', '5'], { cwd: dir });
    assert.equal(r.code, 5, r.stderr);
  });

  it('a bad option or variable: one line, exit 2, and the command never runs', async () => {
    const out = join(dir, 'never.json');
    const r = await exec(['--port', 'abc', ...probe('report', out)], { cwd: dir });
    assert.equal(r.code, 2);
    assert.deepEqual(r.stderr.trim().split('\n'), ['cloudtwin: --port abc: not a port; expected a whole number from 0 to 65535 (0 picks a free port)']);
    const env = await exec(probe('report', out), { cwd: dir, env: { CLOUDTWIN_LOG_FORMAT: 'xml' } });
    assert.equal(env.code, 2);
    assert.deepEqual(env.stderr.trim().split('\n'), ['cloudtwin: CLOUDTWIN_LOG_FORMAT=xml (from the environment): expected one of json, pretty']);
    assert.equal(existsSync(out), false);
  });
});
