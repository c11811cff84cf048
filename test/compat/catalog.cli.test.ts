/**
 * `cloudtwin catalog import|generate|export` as a user runs them: against a running server
 * (`--url`, through the admin API, the admin token from the flag, the environment or the data
 * directory) and on a data directory of their own, with the messages a user sees when something
 * is wrong (a bad line, a missing file, a wrong token, no server).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { channel, OWNER, video } from '../unit/media.fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));
const ADMIN_TOKEN = 'ctadm_catalog-cli-test-token';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  const { CLOUDTWIN_ADMIN_TOKEN: _, CLOUDTWIN_DATA_DIR: __, CLOUDTWIN_DATABASE_URL: ___, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'catalog', ...args], { cwd: o.cwd, env: { ...env, ...o.env }, timeout: 120_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0, stdout, stderr });
    });
  });
}

/** A port nothing listens on (it was free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const ndjson = (entries: unknown[]) => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';

describe('cloudtwin catalog --url: against a running server, through the admin API', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-catalog-cli-'));
    // the server's data directory, with its admin token where `serve` keeps a generated one
    mkdirSync(join(dir, '.cloudtwin'), { mode: 0o700 });
    writeFileSync(join(dir, '.cloudtwin', 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    db = await freshDatabase();
    server = await startServer({ dataDir: join(dir, '.cloudtwin'), databaseUrl: db.url, adminToken: ADMIN_TOKEN, keepDataDir: true });
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('generate, then export: the admin token read from the data directory; the server searches the entries', async () => {
    const gen = await cli(['generate', '--videos', '300', '--seed', '7', '--url', server.url], { cwd: dir });
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stderr, /generated 311 entries in [\d.]+ s; the server indexes them on its next search/);
    const out = join(dir, 'backup.ndjson');
    const exp = await cli(['export', '--url', server.url, '--output', out], { cwd: dir });
    assert.equal(exp.code, 0, exp.stderr);
    assert.match(exp.stderr, /^exported 311 entries$/m);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines.length, 311);
    // the same catalogue as generating it to a file
    const file = await cli(['generate', '--videos', '300', '--seed', '7', '--output', '-'], { cwd: dir });
    assert.deepEqual([...lines].sort(), file.stdout.trim().split('\n').sort());
    const stdout = await cli(['export', '--url', server.url], { cwd: dir, env: { CLOUDTWIN_ADMIN_TOKEN: ADMIN_TOKEN } });
    assert.equal(stdout.stdout.trim().split('\n').length, 311, 'export to stdout, token from CLOUDTWIN_ADMIN_TOKEN');
  });

  test('import checks the whole file first, then writes in batches; entries before their channel wait for it', async () => {
    const file = join(dir, 'late-channel.ndjson');
    // videos first, then their channel, then the content owner that channel names: all written
    writeFileSync(
      file,
      ndjson([
        video('lateVideo001', 'late arrival one', { channelId: 'UClatelatelatelatelate01' }),
        video('lateVideo002', 'late arrival two', { channelId: 'UClatelatelatelatelate01' }),
        channel('UClatelatelatelatelate01', 'Late channel', { videoCount: 2, contentOwner: OWNER.id }),
        OWNER,
      ]),
    );
    const r = await cli(['import', file, '--url', server.url, '--admin-token', ADMIN_TOKEN], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^imported 4 entries$/m);
    const exp = await cli(['export', '--url', server.url, '--admin-token', ADMIN_TOKEN], { cwd: dir });
    for (const id of ['lateVideo001', 'lateVideo002', 'UClatelatelatelatelate01', OWNER.id]) assert.ok(exp.stdout.includes(`"id":"${id}"`), id);
    // no resume mark is left behind
    const hash = (await import('node:crypto')).createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex');
    assert.deepEqual(await server.admin('GET', `/_twin/v1/media/catalog/imports/${hash}`), { id: hash, afterLine: 0 });
  });

  test('a bad file is refused with each bad line (one line and column for a JSON syntax error); nothing is written', async () => {
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, ndjson([channel('UCbadbadbadbadbadbadbad01', 'Bad', { videoCount: 1 })]) + '{"kind": "youtube#video", "id": "x" ]\n' + ndjson([video('orphan00001', 'orphan', { channelId: 'UCnosuchchannel000000000' })]));
    const r = await cli(['import', file, '--url', server.url, '--admin-token', ADMIN_TOKEN], { cwd: dir });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^cloudtwin: import failed, nothing was written:\n {2}line 2, column 37: not JSON: Expected ',' or '}' after property value\n {2}line 3: snippet.channelId: channel 'UCnosuchchannel000000000' is neither in the file nor stored\n$/);
    const exp = await cli(['export', '--url', server.url, '--admin-token', ADMIN_TOKEN], { cwd: dir });
    assert.ok(!exp.stdout.includes('UCbadbadbadbadbadbadbad01'));
  });

  test('a wrong token, no server, a bad URL, a missing file: one clear line each, exit 1', async () => {
    const closed = await freePort();
    const good = join(dir, 'one.ndjson');
    writeFileSync(good, ndjson([OWNER]));
    const cases: [string[], RegExp][] = [
      [['import', good, '--url', server.url, '--admin-token', 'nope'], /^cloudtwin: the server at http:\/\/127\.0\.0\.1:\d+ refused the admin token \(401: The admin API needs Authorization: Bearer <admin token>\.\): is that the server's admin token\?\n$/],
      [['export', '--url', `http://127.0.0.1:${closed}`, '--admin-token', ADMIN_TOKEN], new RegExp(`^cloudtwin: cannot reach the server at http://127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\): is it running there\\?\n$`)],
      [['export', '--url', 'localhost:8080', '--admin-token', ADMIN_TOKEN], /^cloudtwin: --url 'localhost:8080': use an http:\/\/ or https:\/\/ address\n$/],
      [['import', 'no-such.ndjson', '--url', server.url, '--admin-token', ADMIN_TOKEN], /^cloudtwin: cannot read \/.*\/no-such\.ndjson: no such file\n$/],
      [['export', '--url', server.url, '--data-dir', 'elsewhere'], /^cloudtwin: no admin token: pass --admin-token, set CLOUDTWIN_ADMIN_TOKEN, or run where the server's data directory is \(.*elsewhere\/admin-token does not exist; --data-dir names another\)\n$/],
    ];
    for (const [args, expected] of cases) {
      const r = await cli(args, { cwd: dir });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, expected);
    }
  });
});

describe('cloudtwin catalog on a data directory of its own', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-catalog-dir-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a failed import into a new directory leaves nothing behind; into an existing one, nothing new', async () => {
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, 'not json\n');
    const r = await cli(['import', bad, '--data-dir', 'fresh'], { cwd: dir });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^cloudtwin: import failed, nothing was written:\n {2}line 1: not JSON: Unexpected token 'o'\n$/);
    assert.ok(!existsSync(join(dir, 'fresh')), 'the directory the command made is gone');
    mkdirSync(join(dir, 'kept'));
    writeFileSync(join(dir, 'kept', 'notes.txt'), 'mine');
    const again = await cli(['import', bad, '--data-dir', 'kept'], { cwd: dir });
    assert.equal(again.code, 1);
    assert.deepEqual(readdirSync(join(dir, 'kept')), ['notes.txt'], 'no empty database left');
    const missing = await cli(['import', 'missing.ndjson', '--data-dir', 'fresh'], { cwd: dir });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^cloudtwin: cannot read \/.*\/missing\.ndjson: no such file\n$/);
    assert.ok(!existsSync(join(dir, 'fresh')));
  });

  test('a good import writes, and export gives it back', async () => {
    const file = join(dir, 'good.ndjson');
    writeFileSync(file, ndjson([OWNER, channel('UCgoodgoodgoodgoodgood01', 'Good', { videoCount: 1 }), video('goodVideo01', 'good one', { channelId: 'UCgoodgoodgoodgoodgood01' })]));
    const r = await cli(['import', file, '--data-dir', 'data'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const exp = await cli(['export', '--data-dir', 'data'], { cwd: dir });
    assert.equal(exp.stdout.trim().split('\n').length, 3);
  });
});
