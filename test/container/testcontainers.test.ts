/**
 * The Testcontainers example of docs/operations.md (Node, `testcontainers`), run verbatim against
 * podman's Docker-compatible API (`podman system service` on a socket of this test's, named by
 * DOCKER_HOST; TESTCONTAINERS_RYUK_DISABLED=true, as the docs say for podman). It starts the image
 * `cloudtwin:dev`, waits for `/_twin/v1/health` on the mapped port, makes a key and stops the
 * container. Where no container engine can run, the test says so and skips (in CI it must run);
 * it runs once, on the SQLite pass.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { containerSetup, engineOk } from '../support/container.ts';
import { ROOT, docBlocks } from '../support/docs.ts';
import { TEST_STORE } from '../support/store.ts';

const setup = TEST_STORE === 'postgres' ? { skip: 'the container tests run once, on the SQLite pass' } : containerSetup();
let skip: string | false = 'skip' in setup ? setup.skip : false;
if (!skip && !('engine' in setup && setup.engine.endsWith('podman'))) skip = 'the example runs against podman\'s Docker-compatible API';
if (skip && process.env.CI === 'true' && TEST_STORE !== 'postgres') throw new Error(`the Testcontainers example must run in CI: ${skip}`);
if (skip) console.log(`Testcontainers example skipped: ${skip}`);

/** The docs' Node example: the one js block that imports testcontainers. */
const example = docBlocks().filter((b) => ['js', 'mjs'].includes(b.lang) && b.code.includes("from 'testcontainers'"));

describe('the Testcontainers example of the docs', { skip }, () => {
  let dir: string;
  let service: ChildProcess;
  let socket: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-testcontainers-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    socket = join(dir, 'podman.sock');
    service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
    for (let i = 0; i < 200 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(socket), 'podman system service made its socket');
  });
  after(async () => {
    service?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is in the docs once, with GenericContainer, the exposed port, the health wait and the admin token by env', () => {
    assert.equal(example.length, 1, 'one Testcontainers example');
    for (const needle of ['new GenericContainer(', '.withExposedPorts(8080)', "Wait.forHttp('/_twin/v1/health', 8080)", 'CLOUDTWIN_ADMIN_TOKEN']) assert.ok(example[0].code.includes(needle), needle);
  });

  it('runs verbatim against podman: the container starts healthy, answers with a key and is stopped', async (t) => {
    const file = join(dir, 'example.mjs');
    writeFileSync(file, example[0].code);
    const before = await engineOk('podman', ['ps', '-aq', '--filter', 'ancestor=cloudtwin:dev']);
    const started = Date.now();
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [file], { cwd: dir, timeout: 180_000, env: { ...process.env, DOCKER_HOST: `unix://${socket}`, TESTCONTAINERS_RYUK_DISABLED: 'true' } }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );
    t.diagnostic(`the example ran in ${Date.now() - started} ms`);
    assert.equal(r.code, 0, `${example[0].file} line ${example[0].line}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /AIza[0-9A-Za-z_-]{35}/, 'the key made in the container');
    assert.equal(await engineOk('podman', ['ps', '-aq', '--filter', 'ancestor=cloudtwin:dev']), before, 'the container is gone');
  });
});
