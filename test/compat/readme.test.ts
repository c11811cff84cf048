/**
 * Every example of the user documentation runs verbatim, in reading order (README.md, then the
 * pages of docs/ in the order of DOC_PAGES, test/support/docs.ts), the way a reader follows it:
 * every `sh` block (each in its own bash, exported variables carried to the next, the way one
 * terminal session would) and every `js` / `ts` block (as a module next to this repository's
 * node_modules, with the first step's variables), in a directory of its own where `npm start`
 * and `npx cloudtwin` work as in a checkout. One block is marked, in the README, by an HTML
 * comment `<!-- readme.test.ts: start-server ... -->`: the quick start (`npm ci && npm start`,
 * `npm test`); of it the test runs `npm start` only, in the background and with
 * `CLOUDTWIN_PORT=0` (a free port), since the checkout it runs from is installed and `npm test` is
 * what runs this test. The one thing changed in the blocks is that server's address in the first
 * step (`export CLOUDTWIN_URL=http://127.0.0.1:8080`). Blocks that call gcloud need it on PATH
 * (skipped outside CI when it is absent, saying so).
 *
 * A block marked `<!-- readme.test.ts: tls-server ... -->` (Node over TLS) runs against a second
 * server this test starts with `--tls` (its own data directory, the first step's world), with
 * `NODE_EXTRA_CA_CERTS` (its CA) and `CLOUDTWIN_URL` (its https address) as the docs tell the
 * reader to set them. Blocks that run `podman` (the container image: `npm run image:build`, then
 * containers) need it to run here (skipped outside CI when it cannot, saying so); whatever
 * container (`--name`) or volume they name is removed at the end, however they ended.
 * A block marked `<!-- readme.test.ts: file PATH: ... -->` is a file of the reader's (the pytest
 * suite of docs/operations.md): written to PATH in the directory before any example runs (so the
 * README's `cloudtwin exec -- python3 -m pytest tests/` finds it), not run itself; `python3` in
 * shell blocks is a Python with that suite's modules (pytest, googleapiclient, requests: the
 * system's, Debian's packages, where the first python3 on PATH lacks them; skipped outside CI
 * when there is none).
 * A block marked `<!-- readme.test.ts: run-by TEST_FILE ... -->` is run by that test (the
 * Testcontainers example: test/container/testcontainers.test.ts, against podman's socket) and
 * skipped here; one marked `shape-only` shows another language's library not installed here
 * (Testcontainers for Java and Python), skipped with its reason.
 * A block marked `<!-- readme.test.ts: not-yet-runnable REASON -->` (a command
 * still being built) is skipped, with its reason. `python` blocks run with `python3` in the first
 * step's shell environment where `grpcio` is importable (skipped otherwise, saying so); where the
 * API Keys Python package (`google-cloud-api-keys`, not on the registries these machines reach) is
 * not, with the stand-in of its client in test/support/python on PYTHONPATH, which makes the same
 * calls on the block's channel.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CodeBlock, type PageBlock, ROOT, codeBlocks, docBlocks, docsText } from '../support/docs.ts';
import { findGcloud } from '../support/gcloud.ts';
import { pythonHas, pythonWith, pythonWithGrpc } from '../support/python.ts';
import { type ServerProcess, adminOverTls, startServer } from '../support/server.ts';
import { type ReadyProcess, spawnReady } from '../support/spawnReady.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';

const README_URL = 'http://127.0.0.1:8080';

const SHELL = ['sh', 'bash', 'shell'];
const SCRIPT = ['js', 'ts', 'javascript', 'typescript'];
const PYTHON = ['python', 'py'];
/** The annotation of the block that starts the server (the test runs its `npm start` in the background). */
export const START_SERVER = 'start-server';
/** The annotation of a JS block that runs against a server started with `--tls`. */
export const TLS_SERVER = 'tls-server';
/** The annotation of a block whose command is still being built: skipped, with its reason. */
export const NOT_YET_RUNNABLE = 'not-yet-runnable';
/** The annotation of a block that is a file of the reader's (`file PATH: ...`): written to PATH before the examples run, not run itself. */
export const FILE = 'file';
/** The annotation of a block another test runs (`run-by TEST_FILE ...`): skipped here, the file named checked to exist. */
export const RUN_BY = 'run-by';
/** The annotation of a block that shows a shape only (another language's library not installed here): skipped, with its reason. */
export const SHAPE_ONLY = 'shape-only';
/** What a `python3 -m pytest` example needs: the modules of the docs' pytest suite. */
const PYTEST_SUITE_MODULES = ['pytest', 'googleapiclient', 'requests'];

/** The runnable examples among some blocks: every shell, JS/TS and Python block. */
export function runnableExamples<B extends CodeBlock>(blocks: B[]): B[] {
  return blocks.filter((b) => SHELL.includes(b.lang) || SCRIPT.includes(b.lang) || PYTHON.includes(b.lang));
}

/** Why Python blocks cannot run here (no python3 with grpcio), or false; the Python that runs them, and whether the API Keys package itself is importable. */
function python(): { missing: string | false; path: string; gapic: boolean } {
  const path = pythonWithGrpc();
  if (!path) return { missing: 'no python3 with grpcio (pip install grpcio, or apt-get install python3-grpcio)', path: 'python3', gapic: false };
  return { missing: false, path, gapic: pythonHas(path, 'google.cloud.api_keys_v2') };
}

/** The world of the README's first step, for the `--tls` server. */
const README_WORLD = {
  organizations: [{ id: '100000000001', domain: 'example.com' }],
  projects: [{ projectId: 'demo-project', projectNumber: '300000000001', parent: 'organizations/100000000001' }],
  iamPolicies: [{ resource: 'projects/demo-project', bindings: [{ role: 'roles/serviceusage.apiKeysAdmin', members: ['user:alice@example.com'] }] }],
};

/**
 * Makes `dir` behave as the reader's checkout after `npm ci`, with this one's code and packages:
 * `npm start` (package.json, bin/) and `npx cloudtwin` work there, and the examples' imports
 * resolve. `npx cloudtwin` finds the checkout's command in node_modules/.bin: the package.json
 * here has no `bin`, since for a package's own bin npm 11's npx installs the package into its npx
 * cache first (running `prepare`, once per directory: a console build per test run).
 */
function checkout(dir: string): void {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  delete pkg.bin;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'node_modules'))) if (name !== '.bin') symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  for (const name of readdirSync(join(ROOT, 'node_modules', '.bin'))) symlinkSync(join(ROOT, 'node_modules', '.bin', name), join(dir, 'node_modules', '.bin', name));
  symlinkSync(join(ROOT, 'bin', 'cloudtwin.js'), join(dir, 'node_modules', '.bin', 'cloudtwin'));
  // `npm run image:build` (scripts/image-build.ts builds from where it really is: this checkout)
  symlinkSync(join(ROOT, 'scripts'), join(dir, 'scripts'));
}

/** The container engine the examples name (`podman ...`), when one runs here. */
function podman(): boolean {
  try {
    execFileSync('podman', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The containers (`--name N`) and volumes (`volume create V`) the examples make, to remove whatever a failed run left. */
function containerNames(examples: CodeBlock[]): { containers: string[]; volumes: string[] } {
  const text = examples.map((e) => e.code).join('\n');
  return { containers: [...new Set([...text.matchAll(/podman run [^\n]*--name (\S+)/g)].map((m) => m[1]))], volumes: [...new Set([...text.matchAll(/podman volume create (\S+)/g)].map((m) => m[1]))] };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0, stdout, stderr });
    });
  });
}

describe('README and docs examples run verbatim, in order, from the quick start on', () => {
  const examples: PageBlock[] = runnableExamples(docBlocks());
  let server: ReadyProcess | undefined;
  let serverUrl = '';
  let db: TestDatabase;
  let tlsServer: ServerProcess | undefined;
  let tlsDb: TestDatabase | undefined;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-readme-'));
    checkout(dir);
    db = await freshDatabase();
    const rest = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_') && !['CLOUDSDK_CONFIG', 'ADMIN_TOKEN', 'API_KEY'].includes(k)));
    env = {
      ...rest,
      // the Node running this test runs the examples' node, npm and npx too
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
      CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: 'true',
    };
  });
  after(async () => {
    if (server && server.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
    const made = containerNames(examples);
    if (made.containers.length + made.volumes.length > 0 && podman()) {
      for (const name of made.containers) spawnSync('podman', ['rm', '-f', '-t', '0', name], { stdio: 'ignore' });
      for (const name of made.volumes) spawnSync('podman', ['volume', 'rm', '-f', name], { stdio: 'ignore' });
    }
    await tlsServer?.stop();
    tlsServer?.cleanup();
    await tlsDb?.drop();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the docs have the examples this test runs (quick start, first step, curl, googleapis, @google-cloud/apikeys, gcloud, catalogue)', () => {
    const text = examples.map((e) => e.code).join('\n');
    assert.ok(examples.length >= 5, `only ${examples.length} runnable examples found`);
    for (const e of examples.filter((b) => b.annotation === NOT_YET_RUNNABLE)) assert.ok(e.note, `${e.file} line ${e.line}: a not-yet-runnable block says why`);
    const annotated = examples.filter((e) => e.annotation && ![NOT_YET_RUNNABLE, FILE, RUN_BY, SHAPE_ONLY].includes(e.annotation));
    for (const e of examples.filter((b) => b.annotation === SHAPE_ONLY)) assert.ok(e.note, `${e.file} line ${e.line}: a shape-only block says why`);
    for (const e of examples.filter((b) => b.annotation === RUN_BY)) {
      const test = /^test\/\S+\.test\.ts/.exec(e.note ?? '')?.[0];
      assert.ok(test && existsSync(join(ROOT, test)), `${e.file} line ${e.line}: names the test that runs it (${e.note})`);
    }
    for (const e of examples.filter((b) => b.annotation === FILE)) assert.match(e.note ?? '', /^[\w./-]+\b/, `${e.file} line ${e.line}: a file block names its path`);
    assert.deepEqual(annotated.map((e) => e.annotation), [START_SERVER, TLS_SERVER], 'two annotated blocks: the quick start and Node over TLS');
    const tls = annotated[1];
    assert.ok(SCRIPT.includes(tls.lang) && tls.code.includes('grpc.credentials.createSsl(') && tls.code.includes('createFromGoogleCredential('), 'the TLS block is a script with the channel credentials');
    assert.ok(examples.some((e) => PYTHON.includes(e.lang) && e.code.includes('grpc.access_token_call_credentials(token)') && e.code.includes('ApiKeysGrpcTransport(channel=channel)')), 'a Python block with the channel idiom');
    assert.ok(annotated[0].code.includes('npm start') && annotated[0] === examples[0] && annotated[0].file === 'README.md', "the README's quick start, with `npm start`, comes first");
    assert.ok(examples[1].code.includes(`export CLOUDTWIN_URL=${README_URL}`), 'the first step sets CLOUDTWIN_URL');
    for (const needle of ['export ADMIN_TOKEN=$(cat .cloudtwin/admin-token)', 'world:apply', "from 'googleapis'", "from '@google-cloud/apikeys'", 'grpc.credentials.createInsecure()', 'gcloud services api-keys', 'gcloud compute instance-groups managed rolling-action start-update', '--source-instance-template=', 'npx cloudtwin catalog import']) {
      assert.ok(text.includes(needle), `no example with ${needle}`);
    }
    assert.ok(!/\bjq\b/.test(text), 'the examples do not need jq');
  });

  // gcloud takes one to several seconds of CPU per command: on a loaded machine the README's Compute session alone takes minutes
  test('each example in order', { timeout: 1_800_000 }, async (t) => {
    const state = join(dir, 'exported.sh');
    writeFileSync(state, '');
    // the reader's files the docs show (a test suite): there before anything runs
    for (const ex of examples.filter((e) => e.annotation === FILE)) {
      const path = join(dir, /^[\w./-]+/.exec(ex.note!)![0].replace(/[.:]$/, ''));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, ex.code);
    }
    // `python3` in shell blocks is a Python with the pytest suite's modules (Debian's, where the first python3 on PATH lacks them)
    const pytestPython = pythonWith(PYTEST_SUITE_MODULES);
    let pathPrefix = '';
    if (pytestPython && pytestPython !== 'python3') {
      mkdirSync(join(dir, '.python-bin'));
      symlinkSync(pytestPython, join(dir, '.python-bin', 'python3'));
      pathPrefix = `export PATH="${join(dir, '.python-bin')}:$PATH"\n`;
    }
    const gcloud = findGcloud();
    const containers = podman();
    const py = python();
    for (const [i, ex] of examples.entries()) {
      const where = `${ex.file} line ${ex.line}`;
      if (ex.annotation === FILE) continue;
      if (ex.annotation === RUN_BY || ex.annotation === SHAPE_ONLY) {
        t.diagnostic(`${where}: ${ex.annotation === RUN_BY ? 'run by ' : 'shape only: '}${ex.note}`);
        continue;
      }
      if (/python3 -m pytest/.test(ex.code) && !pytestPython) {
        if (process.env.CI === 'true') assert.fail(`${where}: no python3 with ${PYTEST_SUITE_MODULES.join(', ')}; CI needs one`);
        t.diagnostic(`${where}: no python3 with ${PYTEST_SUITE_MODULES.join(', ')} (apt-get install python3-pytest python3-googleapi python3-requests): skipped`);
        console.log(`${where}: no python3 with ${PYTEST_SUITE_MODULES.join(', ')}: skipped`);
        continue;
      }
      if (ex.annotation === NOT_YET_RUNNABLE) {
        t.diagnostic(`${where}: not yet runnable (${ex.note}): skipped`);
        console.log(`${where}: not yet runnable (${ex.note}): skipped`);
        continue;
      }
      if (ex.annotation === START_SERVER) {
        // `npm start` as the block says, in the background; on the PostgreSQL run, on the suite's database
        server = await spawnReady('npm', ['start'], /cloudtwin listening on (http:\/\/\S+)/, {
          cwd: dir,
          env: { ...env, CLOUDTWIN_PORT: '0', ...(TEST_STORE === 'postgres' && { CLOUDTWIN_DATABASE_URL: db.url }) },
          killAfterMs: 1_800_000,
        });
        serverUrl = server.ready[1];
        assert.match(server.stdout(), /^admin token: ctadm_\S+/m, `${where}: the first start prints the admin token`);
        continue;
      }
      if (/^podman /m.test(ex.code) && !containers) {
        if (process.env.CI === 'true') assert.fail(`${where}: podman cannot run here; CI needs it`);
        t.diagnostic(`${where}: no container engine (podman) here: skipped`);
        console.log(`${where}: no container engine (podman) here: skipped`);
        continue;
      }
      if (ex.code.includes('gcloud ') && !gcloud) {
        if (process.env.CI === 'true') assert.fail(`${where}: gcloud (the Google Cloud CLI) is not on PATH; CI needs it`);
        t.diagnostic(`${where}: gcloud is not on PATH: skipped`);
        console.log(`${where}: gcloud is not on PATH: skipped`);
        continue;
      }
      assert.ok(serverUrl, `${where}: runs after the quick start's server is up`);
      let r: Ran;
      if (ex.annotation === TLS_SERVER) {
        tlsDb = await freshDatabase();
        tlsServer = await startServer({ databaseUrl: tlsDb.url, args: ['--tls'] });
        const caPath = join(tlsServer.dataDir, 'tls', 'ca.pem');
        await adminOverTls(tlsServer, readFileSync(caPath), 'POST', '/_twin/v1/world:apply', README_WORLD);
        const file = join(dir, `example-${i}.mjs`);
        writeFileSync(file, ex.code);
        r = await run(process.execPath, [file], dir, { ...env, CLOUDTWIN_URL: tlsServer.url, ADMIN_TOKEN: tlsServer.adminToken, NODE_EXTRA_CA_CERTS: caPath });
        assert.match(tlsServer.url, /^https:\/\//, `${where}: the server speaks TLS`);
        assert.match(r.stdout, /AIza[0-9A-Za-z_-]{35}/, `${where}: the example prints the new key string\n${r.stdout}\n${r.stderr}`);
      } else if (PYTHON.includes(ex.lang)) {
        if (py.missing) {
          t.diagnostic(`${where}: ${py.missing}: skipped`);
          console.log(`${where}: ${py.missing}: skipped`);
          continue;
        }
        const file = join(dir, `example-${i}.py`);
        writeFileSync(file, ex.code);
        // the first step's shell environment (CLOUDTWIN_URL, ...), as `python3 example.py` in that shell
        const script = `source ${state}\nexec ${py.path} ${file}\n`;
        r = await run('bash', ['-c', script], dir, { ...env, PYTHONDONTWRITEBYTECODE: '1', ...(!py.gapic && { PYTHONPATH: join(ROOT, 'test', 'support', 'python') }) }, 60_000);
        assert.match(r.stdout, /AIza[0-9A-Za-z_-]{35}/, `${where}: the example prints the new key string\n${r.stdout}\n${r.stderr}`);
      } else if (SCRIPT.includes(ex.lang)) {
        const file = join(dir, `example-${i}.${ex.lang.startsWith('t') ? 'mts' : 'mjs'}`);
        writeFileSync(file, ex.code);
        const adminToken = readFileSync(join(dir, '.cloudtwin', 'admin-token'), 'utf8').trim();
        r = await run(process.execPath, [file], dir, { ...env, CLOUDTWIN_URL: serverUrl, ADMIN_TOKEN: adminToken });
        assert.match(r.stdout, /AIza[0-9A-Za-z_-]{35}/, `${where}: the example prints the new key string`);
        // a warning the docs quote is quoted as printed
        for (const line of r.stderr.split('\n').filter((l) => /deprecated/i.test(l))) assert.ok(flat(DOCS_TEXT).includes(flat(line).split('. ').slice(0, 2).join('. ')), `${where}: the docs quote the warning as printed: ${line}`);
      } else {
        const code = ex.code.replace(`export CLOUDTWIN_URL=${README_URL}`, `export CLOUDTWIN_URL=${serverUrl}`);
        const script = `source ${state}\n${pathPrefix}set -eo pipefail\n${code}\nexport -p > ${state}\n`;
        r = await run('bash', ['-c', script], dir, env, 600_000);
      }
      const shown = `${where} (${ex.lang}) exited ${r.code}\n--- stdout\n${r.stdout.slice(-20_000)}\n--- stderr\n${r.stderr.slice(-20_000)}`;
      assert.equal(r.code, 0, shown);
      assert.doesNotMatch(r.stdout, /"error"\s*:\s*\{/, shown);
      if (ex.code.includes('keyId=first')) assert.match(r.stdout, /"keyString": "AIza[0-9A-Za-z_-]{35}"/, shown);
      // gcloud prints no warning, as against Google (but the one of `config set` for an endpoint override: see docs/gcloud.md)
      if (ex.code.includes('gcloud ')) assert.deepEqual(r.stderr.split('\n').filter((l) => /^WARNING:/.test(l) && !UNIVERSE_DOMAIN_WARNING.test(l)), [], shown);
      // the managed instance group, rolled to its second template, describes itself as stable
      if (ex.code.includes('rolling-action start-update')) assert.match(r.stdout, /^True$/m, shown);
    }
    // What the examples made, as the server sees it.
    const adminToken = readFileSync(join(dir, '.cloudtwin', 'admin-token'), 'utf8').trim();
    const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
    const token = ((await (await fetch(`${serverUrl}/_twin/v1/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ principal: 'user:alice@example.com' }) })).json()) as { access_token: string }).access_token;
    const res = await fetch(`${serverUrl}/v2/projects/demo-project/locations/global/keys?showDeleted=true`, { headers: { authorization: `Bearer ${token}` } });
    const ids = (((await res.json()) as { keys?: { name: string }[] }).keys ?? []).map((k: { name: string }) => k.name.split('/').pop());
    for (const id of ['first', 'k1', 'k2', 'g1', ...(py.missing ? [] : ['py1']), ...(gcloud ? ['web'] : [])]) assert.ok(ids.includes(id), `key ${id} exists: ${ids}`);
    // the catalogue commands ran against that server: the export holds the generated and imported entries
    const backup = readFileSync(join(dir, 'backup.ndjson'), 'utf8').trim().split('\n');
    assert.ok(backup.length > 10_000, `backup.ndjson has ${backup.length} entries`);
    // `npm start` stops as the README says (SIGTERM to its PID): drains and exits 0
    server!.proc.kill('SIGTERM');
    assert.deepEqual(await server!.exited, { code: 0, signal: null }, server!.stderr());
  });
});

const DOCS_TEXT = docsText();
/** What `gcloud config set api_endpoint_overrides/...` prints for any endpoint outside googleapis.com (docs/gcloud.md calls it harmless). */
const UNIVERSE_DOMAIN_WARNING = /^WARNING: The value set for \[api_endpoint_overrides\/\w+\] was found to be associated with a universe domain outside of the current config universe/;
/** Text with Markdown code marks and runs of white space taken out, to compare a quote with what was printed. */
const flat = (text: string) => text.replace(/`/g, '').replace(/\s+/g, ' ').trim();

describe('docs example extraction', () => {
  test('fenced blocks with their language and line; runnable ones picked', () => {
    const md = 'x\n<!-- readme.test.ts: start-server. why,\non two lines -->\n```sh\nnpm start\n```\n```sh\ncurl $CLOUDTWIN_URL/x\n```\n```\nplain\n```\n```js\nconsole.log(1)\n```\n```yaml\na: 1\n```\n<!-- readme.test.ts: not-yet-runnable. being built -->\n```sh\nlater\n```\n';
    assert.deepEqual(
      codeBlocks(md).map((b) => [b.lang, b.line, b.annotation, b.note]),
      [['sh', 4, START_SERVER, 'why, on two lines'], ['sh', 7, undefined, undefined], ['', 10, undefined, undefined], ['js', 13, undefined, undefined], ['yaml', 16, undefined, undefined], ['sh', 20, NOT_YET_RUNNABLE, 'being built']],
    );
    assert.deepEqual(runnableExamples(codeBlocks(md)).map((b) => b.code), ['npm start\n', 'curl $CLOUDTWIN_URL/x\n', 'console.log(1)\n', 'later\n']);
  });
});
