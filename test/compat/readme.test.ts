/**
 * Every example of README.md runs verbatim, in README order, against a fresh `cloudtwin serve`:
 * the `sh` blocks that use `CLOUDTWIN_URL` (each in its own bash, exported variables carried to
 * the next, the way one terminal session would) and every `js` / `ts` block (as a module next to
 * this repository's node_modules, with the first step's variables). The one thing changed is the
 * server's address in the first step (`export CLOUDTWIN_URL=http://127.0.0.1:8080`), since the
 * test's server listens on a free port. Blocks that call gcloud need it on PATH (skipped outside
 * CI when it is absent, saying so).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { findGcloud } from '../support/gcloud.ts';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README_URL = 'http://127.0.0.1:8080';

export interface Example {
  lang: string;
  code: string;
  /** 1-based line of the opening fence in README.md. */
  line: number;
}

/** The fenced code blocks of a Markdown text, in order. */
export function codeBlocks(markdown: string): Example[] {
  const out: Example[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    out.push({ lang: open[1], code: body.join('\n') + '\n', line: start + 1 });
  }
  return out;
}

/** The README's runnable examples: shell blocks using the server's address, JS/TS blocks. */
export function runnableExamples(markdown: string): Example[] {
  return codeBlocks(markdown).filter((b) => (['sh', 'bash', 'shell'].includes(b.lang) && b.code.includes('CLOUDTWIN_URL')) || ['js', 'ts', 'javascript', 'typescript'].includes(b.lang));
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

describe('README examples run verbatim against a fresh server', () => {
  const examples = runnableExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  let server: ServerProcess;
  let db: TestDatabase;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const ADMIN_TOKEN = 'ctadm_readme-example-admin-token';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-readme-'));
    // The quick start's data directory, where `npm start` keeps the admin token.
    mkdirSync(join(dir, '.cloudtwin'), { mode: 0o700 });
    writeFileSync(join(dir, '.cloudtwin', 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    db = await freshDatabase();
    server = await startServer({ dataDir: join(dir, '.cloudtwin'), databaseUrl: db.url, adminToken: ADMIN_TOKEN });
    const { CLOUDSDK_CONFIG: _, CLOUDTWIN_URL: __, ADMIN_TOKEN: ___, ...rest } = process.env;
    env = { ...rest, CLOUDSDK_CORE_DISABLE_PROMPTS: '1', CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: 'true' };
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the README has the examples this test runs (first step, curl, googleapis, @google-cloud/apikeys, gcloud)', () => {
    const text = examples.map((e) => e.code).join('\n');
    assert.ok(examples.length >= 5, `only ${examples.length} runnable examples found`);
    assert.ok(examples[0].code.includes(`export CLOUDTWIN_URL=${README_URL}`), 'the first example sets CLOUDTWIN_URL');
    for (const needle of ['export ADMIN_TOKEN=$(cat .cloudtwin/admin-token)', 'world:apply', "from 'googleapis'", "from '@google-cloud/apikeys'", 'gcloud services api-keys']) {
      assert.ok(text.includes(needle), `no example with ${needle}`);
    }
    assert.ok(!/\bjq\b/.test(text), 'the examples do not need jq');
  });

  test('each example in order', async (t) => {
    const state = join(dir, 'exported.sh');
    writeFileSync(state, '');
    const gcloud = findGcloud();
    for (const [i, ex] of examples.entries()) {
      const where = `README.md line ${ex.line}`;
      if (ex.code.includes('gcloud ') && !gcloud) {
        if (process.env.CI === 'true') assert.fail(`${where}: gcloud (the Google Cloud CLI) is not on PATH; CI needs it`);
        t.diagnostic(`${where}: gcloud is not on PATH: skipped`);
        console.log(`${where}: gcloud is not on PATH: skipped`);
        continue;
      }
      let r: Ran;
      if (['js', 'ts', 'javascript', 'typescript'].includes(ex.lang)) {
        const file = join(dir, `example-${i}.${ex.lang.startsWith('t') ? 'mts' : 'mjs'}`);
        writeFileSync(file, ex.code);
        r = await run(process.execPath, [file], dir, { ...env, CLOUDTWIN_URL: server.url, ADMIN_TOKEN });
        assert.match(r.stdout, /AIza[0-9A-Za-z_-]{35}/, `${where}: the example prints the new key string`);
      } else {
        const code = ex.code.replace(`export CLOUDTWIN_URL=${README_URL}`, `export CLOUDTWIN_URL=${server.url}`);
        const script = `source ${state}\nset -eo pipefail\n${code}\nexport -p > ${state}\n`;
        r = await run('bash', ['-c', script], dir, env);
      }
      const shown = `${where} (${ex.lang}) exited ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
      assert.equal(r.code, 0, shown);
      assert.doesNotMatch(r.stdout, /"error"\s*:\s*\{/, shown);
      if (ex.code.includes('keyId=first')) assert.match(r.stdout, /"keyString": "AIza[0-9A-Za-z_-]{35}"/, shown);
    }
    // What the examples made, as the server sees it.
    const token = (await server.admin('POST', '/_twin/v1/tokens', { principal: 'user:alice@example.com' })).access_token;
    const res = await fetch(`${server.url}/v2/projects/demo-project/locations/global/keys?showDeleted=true`, { headers: { authorization: `Bearer ${token}` } });
    const ids = (((await res.json()) as { keys?: { name: string }[] }).keys ?? []).map((k: { name: string }) => k.name.split('/').pop());
    for (const id of ['first', 'k1', 'k2', ...(gcloud ? ['web'] : [])]) assert.ok(ids.includes(id), `key ${id} exists: ${ids}`);
  });
});

describe('README example extraction', () => {
  test('fenced blocks with their language and line; runnable ones picked', () => {
    const md = 'x\n```sh\nnpm start\n```\n```sh\ncurl $CLOUDTWIN_URL/x\n```\n```\nplain\n```\n```js\nconsole.log(1)\n```\n```yaml\na: 1\n```\n';
    assert.deepEqual(
      codeBlocks(md).map((b) => [b.lang, b.line]),
      [['sh', 2], ['sh', 5], ['', 8], ['js', 11], ['yaml', 14]],
    );
    assert.deepEqual(runnableExamples(md).map((b) => b.code), ['curl $CLOUDTWIN_URL/x\n', 'console.log(1)\n']);
  });
});
