/**
 * The `cloudtwin serve` contract (DESIGN.md §4), driven as a user would: a separate process,
 * flags and their environment twins, the ready line, the admin token, files in the data
 * directory, signals, and state across a restart.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';
import { callJson as call } from '../support/http.ts';
import { type ReadyProcess, spawnReady } from '../support/spawnReady.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));
const READY = /^cloudtwin listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;
const ADMIN_TOKEN_LINE = /^admin token: (ctadm_\S+)(?: \(kept in (.+)\))?/m;
const DEMO_KEYS = `/v2/projects/${DEMO.projectId}/locations/global/keys`;

interface Serve {
  url: string;
  port: number;
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** The environment the child sees: ours without any CLOUDTWIN_* setting, plus `env`. */
function childEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_')));
  return { ...base, ...env };
}

/** Runs `cloudtwin <args>` and waits for its ready line. */
async function serve(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Serve> {
  const p = await spawnReady(process.execPath, [BIN, ...args], READY, { cwd: opts.cwd, env: childEnv(opts.env) });
  const exited = p.exited.then((x) => x.code);
  return {
    url: p.ready[1],
    port: Number(p.ready[2]),
    proc: p.proc,
    stdout: p.stdout,
    stderr: p.stderr,
    exited,
    async stop() {
      if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs `cloudtwin <args>` expecting it to fail before it is ready; resolves to its exit code and output. */
async function serveFails(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output };
}

async function admin(url: string, adminToken: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await call(url, path, { method, token: adminToken, body });
  assert.equal(r.status, 200, `admin ${method} ${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

async function aliceToken(url: string, adminToken: string): Promise<string> {
  return (await admin(url, adminToken, 'POST', '/_twin/v1/tokens', { principal: ALICE })).access_token;
}

/** Creates a key in demo-project and returns it with its key string. */
async function createDemoKey(url: string, token: string, keyId: string): Promise<{ name: string; uid: string; keyString: string }> {
  const r = await call(url, `${DEMO_KEYS}?keyId=${keyId}`, { method: 'POST', token, body: { displayName: keyId } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  let op = r.body;
  for (let i = 0; !op.done && i < 100; i++) {
    await new Promise((res) => setTimeout(res, 50));
    op = (await call(url, `/v2/${op.name}`, { token })).body;
  }
  assert.equal(op.done, true);
  assert.equal(op.error, undefined, JSON.stringify(op.error));
  return op.response;
}

const mode = (file: string) => statSync(file).mode & 0o777;
const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
/** `--database-url` for the suite's store (nothing on SQLite). */
const dbArgs = (db: TestDatabase) => (db.url ? ['--database-url', db.url] : []);

describe('cloudtwin serve: defaults, ready line and generated admin token', () => {
  let db: TestDatabase;
  let cwd: string;
  let first: Serve;
  let second: Serve;
  let generated: string;

  before(async () => {
    db = await freshDatabase();
    cwd = tmp('cloudtwin-cwd-');
    // No --data-dir: the default ./.cloudtwin under the working directory.
    first = await serve(['serve', '--port', '0', ...dbArgs(db)], { cwd });
  });

  after(async () => {
    await first?.stop();
    await second?.stop();
    rmSync(cwd, { recursive: true, force: true });
    await db?.drop();
  });

  it('prints `cloudtwin listening on http://127.0.0.1:PORT` with the port --port 0 picked', async () => {
    assert.ok(first.port > 0);
    const lines = first.stdout().split('\n').filter((l) => l.startsWith('cloudtwin listening on'));
    assert.deepEqual(lines, [`cloudtwin listening on http://127.0.0.1:${first.port}`]);
    const health = await call(first.url, '/_twin/v1/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    assert.equal(health.body.store, TEST_STORE === 'postgres' ? 'postgres' : 'sqlite');
    assert.equal(typeof health.body.version, 'string');
  });

  it('generates an admin token, prints it once before the ready line and keeps it in ./.cloudtwin with mode 0600', async () => {
    const m = ADMIN_TOKEN_LINE.exec(first.stdout());
    assert.ok(m, `no admin token line in:\n${first.stdout()}`);
    generated = m[1];
    assert.equal(m[2], join(realpathSync(cwd), '.cloudtwin', 'admin-token'));
    assert.ok(first.stdout().indexOf('admin token:') < first.stdout().indexOf('cloudtwin listening on'));
    assert.equal(first.stdout().match(/admin token:/g)!.length, 1);
    const file = join(cwd, '.cloudtwin', 'admin-token');
    assert.equal(readFileSync(file, 'utf8').trim(), generated);
    assert.equal(mode(file), 0o600);
    assert.ok(!first.stderr().includes(generated), 'the token is not logged');

    // it is the admin token: it opens the admin API, another one does not
    assert.equal((await call(first.url, '/_twin/v1/clock', { token: generated })).status, 200);
    assert.equal((await call(first.url, '/_twin/v1/clock', { token: 'not-the-token' })).status, 401);
    assert.equal((await call(first.url, '/_twin/v1/clock')).status, 401);
  });

  it('keeps master.key in the data directory with mode 0600 (and the SQLite database there on SQLite)', () => {
    const dir = join(cwd, '.cloudtwin');
    const key = join(dir, 'master.key');
    assert.equal(mode(key), 0o600);
    assert.equal(Buffer.from(readFileSync(key, 'utf8').trim(), 'base64').length, 32);
    if (TEST_STORE === 'sqlite') assert.ok(readdirSync(dir).includes('cloudtwin.db'));
  });

  it('a second start with the same data directory prints where the token is kept, not the token, and uses the stored one', async () => {
    assert.ok(generated, 'needs the token of the first start');
    assert.equal(await first.stop(), 0);
    second = await serve(['serve', '--port', '0', ...dbArgs(db)], { cwd });
    assert.match(second.stdout(), new RegExp(`^admin token: kept in ${join(realpathSync(cwd), '.cloudtwin', 'admin-token').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.ok(!second.stdout().includes(generated), 'the token itself is printed at the first start only');
    assert.equal((await call(second.url, '/_twin/v1/clock', { token: generated })).status, 200);
    assert.equal(readFileSync(join(cwd, '.cloudtwin', 'admin-token'), 'utf8').trim(), generated);
  });
});

describe('cloudtwin serve: environment twins of the flags', () => {
  let db: TestDatabase;
  let dataDir: string;
  let server: Serve;

  before(async () => {
    db = await freshDatabase();
    dataDir = tmp('cloudtwin-env-');
    server = await serve(['serve'], {
      env: {
        CLOUDTWIN_PORT: '0',
        CLOUDTWIN_AUTH: 'permissive',
        CLOUDTWIN_DATA_DIR: dataDir,
        CLOUDTWIN_ADMIN_TOKEN: 'env-admin-token',
        ...(db.url ? { CLOUDTWIN_DATABASE_URL: db.url } : {}),
      },
    });
  });

  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('CLOUDTWIN_PORT=0 picks a free port', () => {
    assert.ok(server.port > 0 && server.port !== 8080);
  });

  it('CLOUDTWIN_ADMIN_TOKEN and CLOUDTWIN_DATA_DIR are used (no token generated)', async () => {
    assert.match(server.stdout(), /^admin token: as given by CLOUDTWIN_ADMIN_TOKEN \(from the environment\)$/m);
    assert.ok(!server.stdout().includes('env-admin-token'));
    assert.equal((await call(server.url, '/_twin/v1/clock', { token: 'env-admin-token' })).status, 200);
    assert.ok(readdirSync(dataDir).includes('master.key'));
  });

  it('CLOUDTWIN_AUTH=permissive: warns, and any bearer token acts as the owner', async () => {
    assert.match(server.stderr(), /auth is permissive/);
    await admin(server.url, 'env-admin-token', 'POST', '/_twin/v1/world:apply', testWorld);
    const listed = await call(server.url, DEMO_KEYS, { token: 'anything-at-all' });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    // a credential is still required
    assert.equal((await call(server.url, DEMO_KEYS)).status, 401);
  });
});

describe('cloudtwin serve: --auth', () => {
  let db: TestDatabase;
  let dataDir: string;
  let permissiveDir: string;
  let enforced: Serve;
  let permissive: Serve;

  before(async () => {
    db = await freshDatabase();
    dataDir = tmp('cloudtwin-auth-');
    const common = ['serve', '--port', '0', '--data-dir', dataDir, '--admin-token', 'auth-admin', ...dbArgs(db)];
    enforced = await serve(common);
    await admin(enforced.url, 'auth-admin', 'POST', '/_twin/v1/world:apply', testWorld);
    assert.equal(await enforced.stop(), 0);
    enforced = await serve(common);
    // A SQLite data directory serves one process, so on SQLite the permissive server gets its own;
    // on PostgreSQL both share the database (and, through the data directory, its master key).
    permissiveDir = db.url ? dataDir : tmp('cloudtwin-permissive-');
    permissive = await serve(['serve', '--port', '0', '--data-dir', permissiveDir, '--admin-token', 'auth-admin', ...dbArgs(db), '--auth', 'permissive', '--log-level', 'warn']);
    if (!db.url) await admin(permissive.url, 'auth-admin', 'POST', '/_twin/v1/world:apply', testWorld);
  });

  after(async () => {
    await enforced?.stop();
    await permissive?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(permissiveDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('enforces by default: an unknown bearer token is rejected', async () => {
    assert.doesNotMatch(enforced.stderr(), /permissive/);
    const r = await call(enforced.url, DEMO_KEYS, { token: 'made-up' });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.status, 'UNAUTHENTICATED');
    const ok = await call(enforced.url, DEMO_KEYS, { token: await aliceToken(enforced.url, 'auth-admin') });
    assert.equal(ok.status, 200);
  });

  it('--auth permissive logs a warning and accepts any bearer token', async () => {
    assert.match(permissive.stderr(), /"level":40.*auth is permissive|auth is permissive/);
    assert.equal((await call(permissive.url, DEMO_KEYS, { token: 'made-up' })).status, 200);
  });
});

describe('cloudtwin serve: --world and --in-memory', () => {
  let db: TestDatabase;
  let dir: string;
  let withWorld: Serve;
  let inMemory: Serve;
  let inMemoryCwd: string;

  before(async () => {
    db = await freshDatabase();
    dir = tmp('cloudtwin-world-');
    const worldFile = join(dir, 'world.yaml');
    writeFileSync(worldFile, toYaml(testWorld));
    withWorld = await serve(['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--admin-token', 'world-admin', '--world', worldFile, ...dbArgs(db)]);
    inMemoryCwd = tmp('cloudtwin-mem-');
    inMemory = await serve(['serve', '--port', '0', '--in-memory'], { cwd: inMemoryCwd });
  });

  after(async () => {
    await withWorld?.stop();
    await inMemory?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(inMemoryCwd, { recursive: true, force: true });
    await db?.drop();
  });

  it('--world file.yaml is applied at start', async () => {
    const token = await aliceToken(withWorld.url, 'world-admin');
    const list = await call(withWorld.url, DEMO_KEYS, { token });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const key = await createDemoKey(withWorld.url, token, 'from-world');
    assert.equal(key.name, `projects/${DEMO.projectNumber}/locations/global/keys/from-world`);
    const snapshot = await admin(withWorld.url, 'world-admin', 'GET', '/_twin/v1/snapshot');
    assert.ok(JSON.stringify(snapshot).includes(DEMO.projectNumber));
  });

  it('--in-memory serves fully, prints its generated token and writes no files', async () => {
    const m = ADMIN_TOKEN_LINE.exec(inMemory.stdout());
    assert.ok(m, inMemory.stdout());
    assert.doesNotMatch(inMemory.stdout(), /kept in/);
    const adminToken = m[1];
    assert.equal((await call(inMemory.url, '/_twin/v1/health')).body.store, 'sqlite-memory');
    await admin(inMemory.url, adminToken, 'POST', '/_twin/v1/world:apply', testWorld);
    await createDemoKey(inMemory.url, await aliceToken(inMemory.url, adminToken), 'in-memory');
    assert.equal(await inMemory.stop(), 0);
    assert.deepEqual(readdirSync(inMemoryCwd), [], 'nothing written in the working directory');
  });
});

describe('cloudtwin serve: --in-memory --tls', () => {
  it('keeps the local CA for the run only: no private key on disk, its certificate removed at exit', async () => {
    const cwd = tmp('cloudtwin-mem-tls-');
    try {
      const p = await spawnReady(process.execPath, [BIN, 'serve', '--port', '0', '--in-memory', '--tls'], /^TLS certificate from the local CA (\S+) /m, { cwd, env: childEnv() });
      const caFile = p.ready[1];
      const caDir = join(caFile, '..');
      assert.match(p.stdout(), /^cloudtwin listening on https:\/\/127\.0\.0\.1:\d+$/m);
      assert.deepEqual(readdirSync(caDir), ['ca.pem'], 'the CA certificate only, no key');
      const url = /^cloudtwin listening on (\S+)$/m.exec(p.stdout())![1];
      const health = await new Promise<number>((resolve, reject) =>
        httpsGet(`${url}/_twin/v1/health`, { ca: readFileSync(caFile) }, (res) => resolve(res.statusCode!)).on('error', reject),
      );
      assert.equal(health, 200, 'the certificate is valid for the run');
      p.proc.kill('SIGTERM');
      assert.equal((await p.exited).code, 0);
      assert.throws(() => statSync(caDir), /ENOENT/, 'the temporary directory is gone');
      assert.deepEqual(readdirSync(cwd), [], 'nothing written in the working directory');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('cloudtwin serve: SIGTERM and restart', () => {
  let db: TestDatabase;
  let dataDir: string;
  let first: Serve;
  let second: Serve;
  const args = () => ['serve', '--port', '0', '--data-dir', dataDir, '--admin-token', 'restart-admin', ...dbArgs(db)];

  before(async () => {
    db = await freshDatabase();
    dataDir = join(tmp('cloudtwin-restart-'), 'data-dir-not-yet-created');
    first = await serve(args());
    await admin(first.url, 'restart-admin', 'POST', '/_twin/v1/world:apply', testWorld);
  });

  after(async () => {
    await first?.stop();
    await second?.stop();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
    await db?.drop();
  });

  let key: { name: string; uid: string; keyString: string };

  it('SIGTERM drains in-flight requests and exits 0', async () => {
    const token = await aliceToken(first.url, 'restart-admin');
    key = await createDemoKey(first.url, token, 'survivor');
    // A burst of requests, then SIGTERM while they are in flight: none may fail with a 5xx
    // (the store must outlive the HTTP server); a refused connection is fine.
    const burst = Array.from({ length: 30 }, () =>
      fetch(`${first.url}${DEMO_KEYS}`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
        () => 'refused' as const,
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    const t0 = Date.now();
    first.proc.kill('SIGTERM');
    const statuses = await Promise.all(burst);
    assert.equal(await first.exited, 0);
    assert.ok(Date.now() - t0 < 10_000, 'exits promptly');
    assert.ok(statuses.every((s) => s === 200 || s === 'refused'), `statuses: ${statuses.join(',')}`);
    await assert.rejects(fetch(`${first.url}/_twin/v1/health`), 'no longer listening');
  });

  it('a key created before a restart still works after it (same data directory)', async () => {
    assert.ok(key, 'needs the key of the previous test');
    second = await serve(args());
    const token = await aliceToken(second.url, 'restart-admin');
    const got = await call(second.url, `/v2/${key.name}`, { token });
    assert.equal(got.status, 200);
    assert.equal(got.body.uid, key.uid);
    // the key string decrypts with the kept master key and is found by its lookup hash
    const ks = await call(second.url, `/v2/${key.name}/keyString`, { token });
    assert.deepEqual(ks.body, { keyString: key.keyString });
    const found = await call(second.url, `/v2/keys:lookupKey?keyString=${encodeURIComponent(key.keyString)}`, { token });
    assert.equal(found.status, 200);
    assert.equal(found.body.name, key.name);
    // and the world is still there
    assert.equal((await call(second.url, DEMO_KEYS, { token })).body.keys.length, 1);
  });

  it('refuses to start with a different master key for the same store', async () => {
    assert.equal(await second.stop(), 0);
    const other = Buffer.alloc(32, 7).toString('base64');
    const r = await serveFails(args(), { env: { CLOUDTWIN_MASTER_KEY: other } });
    assert.notEqual(r.code, 0);
    assert.match(r.output, /master key does not match/);
    assert.doesNotMatch(r.output, /cloudtwin listening on/);
  });
});

describe('cloudtwin serve: SIGINT and SIGHUP drain too', () => {
  let db: TestDatabase;
  let dataDir: string;
  before(async () => {
    db = await freshDatabase();
    dataDir = tmp('cloudtwin-signals-');
  });
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  for (const signal of ['SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: drains, frees the port and the data directory, exits 0`, async () => {
      const s = await serve(['serve', '--port', '0', '--data-dir', dataDir, '--admin-token', 'signals-admin', ...dbArgs(db)]);
      assert.equal((await call(s.url, '/_twin/v1/health')).status, 200);
      s.proc.kill(signal);
      assert.equal(await s.exited, 0);
      assert.match(s.stderr(), new RegExp(`"signal":"${signal}","msg":"draining"`));
      await assert.rejects(fetch(`${s.url}/_twin/v1/health`), 'no longer listening');
      assert.deepEqual(readdirSync(dataDir).filter((f) => f === 'cloudtwin.lock'), [], 'the data directory is unlocked');
    });
  }
});

/** The environment variables `cloudtwin serve --help` lists (`env: CLOUDTWIN_...`). */
function serveEnvTwins(): string[] {
  const help = execFileSync(process.execPath, [BIN, 'serve', '--help'], { env: childEnv(), encoding: 'utf8' });
  return [...help.matchAll(/env:\s+(CLOUDTWIN_\w+)/g)].map((m) => m[1]);
}

describe('cloudtwin serve: what a container runtime expects', () => {
  let server: ReadyProcess | undefined;
  after(async () => {
    if (server && server.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
  });

  it('--host 0.0.0.0 prints an address to open (this machine\'s loopback one, noting every interface listens), which answers', async () => {
    server = await spawnReady(process.execPath, [BIN, 'serve', '--in-memory'], /^cloudtwin listening on (http:\/\/[^ ]+)(.*)$[^]*^transports: /m, { env: childEnv({ CLOUDTWIN_HOST: '0.0.0.0', CLOUDTWIN_PORT: '0' }) });
    const [, url, note] = server.ready;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(note, ' (all interfaces: 0.0.0.0)');
    assert.match(server.stdout(), new RegExp(`^console at ${url}/console/$`, 'm'));
    assert.equal((await call(url, '/_twin/v1/health')).status, 200);
  });

  it('logs JSON lines on stderr by default; stdout has the start lines only', async () => {
    await call(server!.ready[1], '/_twin/v1/health');
    for (let i = 0; i < 100 && !server!.stderr().includes('request completed'); i++) await new Promise((r) => setTimeout(r, 20));
    const json = server!.stderr().trim().split('\n');
    assert.ok(json.some((line) => line.includes('"msg":"request completed"')), server!.stderr());
    for (const line of json) assert.equal(typeof JSON.parse(line).msg, 'string', line);
    assert.ok(server!.stdout().trim().split('\n').every((l) => /^(admin token: |cloudtwin listening on |console at |transports: )/.test(l)), server!.stdout());
  });

  it('CLOUDTWIN_LOG_FORMAT=pretty: one plain line per record (time, level, message, fields) for people', async () => {
    const pretty = await spawnReady(process.execPath, [BIN, 'serve', '--in-memory', '--port', '0', '--auth', 'permissive'], READY, { env: childEnv({ CLOUDTWIN_LOG_FORMAT: 'pretty' }) });
    try {
      await call(pretty.ready[1], '/_twin/v1/health');
      pretty.proc.kill('SIGTERM');
      assert.equal((await pretty.exited).code, 0);
      const lines = pretty.stderr().trim().split('\n');
      assert.match(lines[0], /^\d\d:\d\d:\d\d\.\d{3} WARN  auth is permissive: /);
      assert.ok(lines.some((l) => /^\d\d:\d\d:\d\d\.\d{3} INFO  request completed reqId=req-\d+ method=GET url=\/_twin\/v1\/health status=200 responseTime=[\d.]+ remoteAddress=127\.0\.0\.1$/.test(l)), lines.join('\n'));
      assert.match(lines.at(-1)!, /^\d\d:\d\d:\d\d\.\d{3} INFO  draining signal=SIGTERM$/);
      assert.ok(!lines.some((l) => l.startsWith('{')), 'no JSON');
    } finally {
      if (pretty.proc.exitCode === null) pretty.proc.kill('SIGKILL');
    }
  });
});

describe('cloudtwin serve: start-up errors are one line naming the flag or variable, the value and what is expected', () => {
  let dir: string;
  before(() => {
    dir = tmp('cloudtwin-errors-');
    writeFileSync(join(dir, 'a-file'), 'not a directory');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The one line the failed start printed (and nothing on stdout), with its exit code. */
  const failure = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = await serveFails(['serve', ...args], { cwd: dir, env });
    const lines = r.output.trim().split('\n');
    return { code: r.code, lines, line: lines.at(-1)! };
  };

  it('--data-dir naming a file: exit 2', async () => {
    const r = await failure(['--port', '0', '--data-dir', join(dir, 'a-file')]);
    assert.deepEqual(r.lines, [`cloudtwin: --data-dir ${join(dir, 'a-file')}: a file is in the way (the path, or one of its parents, is a file); expected a directory, or a path where one can be created`]);
    assert.equal(r.code, 2);
    const under = await failure(['--port', '0', '--data-dir', join(dir, 'a-file', 'data')]);
    assert.match(under.line, /^cloudtwin: --data-dir .*a-file\/data: a file is in the way/);
    assert.equal(under.code, 2);
  });

  it('a missing --world file: exit 2, and nothing created', async () => {
    const r = await failure(['--port', '0', '--data-dir', join(dir, 'world-data'), '--world', 'no-such-world.yaml']);
    assert.deepEqual(r.lines, ['cloudtwin: --world no-such-world.yaml: no such file; expected a world document file (JSON, or YAML ending in .yaml or .yml)']);
    assert.equal(r.code, 2);
    assert.equal(readdirSync(dir).includes('world-data'), false);
    writeFileSync(join(dir, 'broken.json'), '{"projects": [');
    const broken = await failure(['--port', '0', '--in-memory', '--world', join(dir, 'broken.json')]);
    assert.match(broken.line, /^cloudtwin: --world .*broken\.json: not valid JSON/);
    assert.equal(broken.code, 2);
  });

  it('a PostgreSQL URL that does not answer, or names an unknown host: says PostgreSQL, exit 1, no data directory left', async () => {
    const refused = await failure(['--port', '0', '--database-url', 'postgres://postgres@127.0.0.1:1/db', '--data-dir', join(dir, 'pg-data')]);
    assert.equal(refused.line, 'cloudtwin: --database-url postgres://postgres@127.0.0.1:1/db: PostgreSQL does not answer at 127.0.0.1:1 (connection refused); expected a running PostgreSQL server there');
    assert.equal(refused.code, 1);
    assert.equal(readdirSync(dir).includes('pg-data'), false);
    const unknown = await failure(['--port', '0', '--data-dir', join(dir, 'pg-data')], { CLOUDTWIN_DATABASE_URL: 'postgres://u:secret@no-such-host.invalid/db' });
    assert.match(unknown.line, /^cloudtwin: CLOUDTWIN_DATABASE_URL=postgres:\/\/u:\*\*\*\*@no-such-host\.invalid\/db \(from the environment\): PostgreSQL host no-such-host\.invalid is unknown \((ENOTFOUND|EAI_AGAIN)\)/);
    assert.ok(!unknown.lines.join('\n').includes('secret'), 'the password is masked');
    assert.equal(unknown.code, 1);
  });

  it('--data-dir with --database-url: says the directory keeps only the master key and admin token', async () => {
    const r = await failure(['--port', '0', '--database-url', 'postgres://postgres@127.0.0.1:1/db', '--data-dir', join(dir, 'both')]);
    assert.equal(r.lines[0], `cloudtwin: --data-dir ${join(dir, 'both')}: the store is PostgreSQL (--database-url postgres://postgres@127.0.0.1:1/db); this directory keeps only master.key and admin-token`);
  });

  it('--port abc and CLOUDTWIN_PORT=abc: the range, and that it came from the environment; exit 2', async () => {
    const flag = await failure(['--port', 'abc', '--in-memory']);
    assert.deepEqual(flag.lines, ['cloudtwin: --port abc: not a port; expected a whole number from 0 to 65535 (0 picks a free port)']);
    assert.equal(flag.code, 2);
    const env = await failure(['--in-memory'], { CLOUDTWIN_PORT: 'abc' });
    assert.deepEqual(env.lines, ['cloudtwin: CLOUDTWIN_PORT=abc (from the environment): not a port; expected a whole number from 0 to 65535 (0 picks a free port)']);
    assert.equal(env.code, 2);
    const high = await failure(['--port', '70000', '--in-memory']);
    assert.equal(high.code, 2);
  });

  it('a port in use: a hint about --port 0, exit 1, and no data directory made (bound before anything is created)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await failure(['--port', String(port), '--data-dir', join(dir, 'busy')]);
      assert.deepEqual(r.lines, [`cloudtwin: --port ${port}: already in use on 127.0.0.1: choose another port, or 0 to pick a free one (--port 0)`]);
      assert.equal(r.code, 1);
      assert.equal(readdirSync(dir).includes('busy'), false);
    } finally {
      taken.close();
    }
  });

  it('an unknown flag or a value not among the choices is a usage error: exit 2', async () => {
    assert.equal((await failure(['--no-such-flag'])).code, 2);
    const auth = await failure(['--auth', 'maybe']);
    assert.deepEqual(auth.lines, ['cloudtwin: --auth maybe: expected one of enforce, permissive']);
    assert.equal(auth.code, 2);
  });

  // Every environment twin of a flag, each with a value that can never work: one line naming the
  // variable, its value and what is expected, exit 2 (1 only where the value may work another
  // time), nothing on stdout, nothing started.
  const badEnv: [string, string, RegExp][] = [
    ['CLOUDTWIN_HOST', 'no-such-host.invalid', /cannot listen on this host \((ENOTFOUND|EAI_AGAIN)\)/],
    ['CLOUDTWIN_PORT', '-1', /not a port; expected a whole number from 0 to 65535/],
    ['CLOUDTWIN_DATA_DIR', '/dev/null/data', /a file is in the way/],
    ['CLOUDTWIN_IN_MEMORY', 'maybe', /not a switch value; expected true or false \(or 1\/0, yes\/no, on\/off\)/],
    ['CLOUDTWIN_DATABASE_URL', 'localhost:5432/db', /not a PostgreSQL URL; expected postgres:\/\/USER@HOST:PORT\/DATABASE/],
    ['CLOUDTWIN_WORLD', 'no-such-world.yaml', /no such file; expected a world document file/],
    ['CLOUDTWIN_ADMIN_TOKEN', 'two words', /not a bearer token/],
    ['CLOUDTWIN_AUTH', 'maybe', /expected one of enforce, permissive/],
    ['CLOUDTWIN_PERMISSIVE_PRINCIPAL', 'alice', /not a principal; expected an IAM member such as user:alice@example\.com/],
    ['CLOUDTWIN_ALLOWED_HOSTS', 'ok.example,http://bad.example', /'http:\/\/bad\.example' is not a host name/],
    ['CLOUDTWIN_MEDIA_PATH_PREFIX', 'youtube', /not a path prefix/],
    ['CLOUDTWIN_MEDIA_SERVICE_NAME', 'YouTube', /not a service name; expected a DNS name/],
    ['CLOUDTWIN_MEDIA_KIND_PREFIX', 'yt', /expected one of media, youtube/],
    ['CLOUDTWIN_MEDIA_SEARCH_THREADS', '4', /expected one of 1, 2/],
    ['CLOUDTWIN_TLS', 'maybe', /not a switch value/],
    ['CLOUDTWIN_TLS_CERT', 'no-such-cert.pem', /no such file; expected a PEM certificate chain/],
    ['CLOUDTWIN_TLS_KEY', 'a-file', /needs --tls-cert too/],
    ['CLOUDTWIN_JOURNAL_SIZE', 'lots', /not a journal size; expected a whole number from 0 to 10000000/],
    ['CLOUDTWIN_JOURNAL_BODIES', 'maybe', /not a switch value/],
    ['CLOUDTWIN_LOG_LEVEL', 'loud', /expected one of fatal, error, warn, info, debug, trace, silent/],
    ['CLOUDTWIN_LOG_FORMAT', 'xml', /expected one of json, pretty/],
  ];
  it('every environment twin with a bad value: one line naming the variable and its value, exit 2', async () => {
    const twins = serveEnvTwins();
    assert.deepEqual([...badEnv.map(([name]) => name)].sort(), twins.sort(), 'every variable `cloudtwin serve --help` lists is tried');
    // four at a time (each is a process start)
    const results = new Map<string, Awaited<ReturnType<typeof failure>>>();
    const queue = [...badEnv];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [name, value] = next;
          results.set(name, await failure(name === 'CLOUDTWIN_DATA_DIR' ? [] : ['--data-dir', join(dir, 'env-data')], { [name]: value }));
        }
      }),
    );
    for (const [name, value, reason] of badEnv) {
      const r = results.get(name)!;
      const shown = name === 'CLOUDTWIN_ADMIN_TOKEN' ? '****' : value;
      assert.equal(r.lines.length, 1, `${name}: one line\n${r.lines.join('\n')}`);
      assert.ok(r.line.startsWith(`cloudtwin: ${name}=${shown} (from the environment): `), r.line);
      assert.match(r.line, reason, name);
      assert.equal(r.code, 2, `${name}: ${r.line}`);
      assert.equal(readdirSync(dir).includes('env-data'), false, `${name}: nothing started`);
    }
  });

  it('a switch variable takes true or false: CLOUDTWIN_IN_MEMORY=false keeps the data directory, =1 memory', async () => {
    const onDisk = await serve(['serve', '--port', '0', '--data-dir', join(dir, 'switch-data')], { env: { CLOUDTWIN_IN_MEMORY: 'false' } });
    assert.equal((await call(onDisk.url, '/_twin/v1/health')).body.store, 'sqlite');
    assert.equal(await onDisk.stop(), 0);
    const inMemory = await serve(['serve', '--port', '0', '--data-dir', join(dir, 'switch-memory')], { env: { CLOUDTWIN_IN_MEMORY: '1' } });
    assert.equal((await call(inMemory.url, '/_twin/v1/health')).body.store, 'sqlite-memory');
    assert.equal(await inMemory.stop(), 0);
    assert.equal(readdirSync(dir).includes('switch-memory'), false);
  });
});
