/**
 * The npm package: `npm pack` (prepack compiles src/ to dist/), the tarball's contents, and an
 * install into a fresh project from the npm cache (`--prefer-offline`) where, on Node 24 and on
 * Node 22, `npx cloudtwin serve` serves (API, admin API, console), the catalogue commands work,
 * `import('cloudtwin')` starts a fixture, and the docs' node:test, vitest and jest examples pass
 * verbatim (and the jest one fails when an assertion is made to fail).
 *
 * The pack and the install are kept in the OS temp directory under a hash of what goes into the
 * package, so the second run (the other store) and later runs on unchanged sources reuse them.
 * Node 22 is installed the way .ci/run installs Node 24: `npm install --prefix .ci/.node22 node@22`.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { docBlocks } from '../support/docs.ts';
import { spawnReady } from '../support/spawnReady.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE22_DIR = join(ROOT, '.ci', '.node22');
const NODE22 = join(NODE22_DIR, 'node_modules', 'node', 'bin', 'node');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
/** The vitest this repository has (so the project's install finds it in the npm cache). */
const VITEST = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'vitest', 'package.json'), 'utf8')).version as string;
/** The jest this repository has (likewise). */
const JEST = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'jest', 'package.json'), 'utf8')).version as string;

/** The `mjs` test-suite examples of the README and docs/ that use the package, in reading order. */
const suiteExamples = (needle: string) => docBlocks().filter((b) => b.lang === 'mjs' && b.code.includes("from 'cloudtwin'") && b.code.includes(needle));
/** A file name for an example: its page and line. */
const exampleName = (ex: { file: string; line: number }) => `${ex.file.replace(/\W+/g, '-')}-${ex.line}`;

/** Every file whose content goes into the package (or decides how it is built). */
function packageInputs(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(ROOT, join(e.parentPath, e.name)));
  return [...walk('src'), ...walk('bin'), ...walk('console/dist'), ...walk('protos'), 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build-package.js', 'README.md'].sort();
}

function inputsHash(): string {
  const h = createHash('sha256');
  for (const f of packageInputs()) h.update(f).update('\0').update(readFileSync(join(ROOT, f))).update('\0');
  return h.digest('hex').slice(0, 16);
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** The packed tarball and a project with it installed, made once per content hash. */
function packedProject(): { tarball: string; project: string } {
  const dir = join(tmpdir(), `cloudtwin-package-${inputsHash()}`);
  const tarball = join(dir, `cloudtwin-${VERSION}.tgz`);
  const project = join(dir, 'project');
  if (existsSync(join(dir, 'ready'))) return { tarball, project };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  npm(['pack', '--pack-destination', dir, '--silent'], ROOT);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-cloudtwin', version: '1.0.0', private: true, type: 'module' }, null, 2));
  npm(['install', '--save-dev', tarball, `vitest@${VITEST}`, `jest@${JEST}`, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], project);
  writeFileSync(join(dir, 'ready'), new Date().toISOString());
  return { tarball, project };
}

/** Node 22 from the npm registry, once (as .ci/run installs Node 24). */
function node22(): string {
  if (!existsSync(NODE22)) npm(['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', '--prefix', NODE22_DIR, 'node@22'], ROOT);
  return NODE22;
}

/** The environment of a user's shell with `node` (the given binary) first on PATH. */
function shellWith(node: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_') && !k.startsWith('npm_') && k !== 'NODE_TEST_CONTEXT' && k !== 'NODE_OPTIONS'));
  return { ...env, PATH: [join(node, '..'), process.env.PATH].join(delimiter), npm_config_update_notifier: 'false' };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the npm package', () => {
  let packed: { tarball: string; project: string };
  before(() => {
    packed = packedProject();
  });

  it('is not private, exports . and ./package.json, and its tarball holds the compiled code and the console, no sources, tests, benches or secrets', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.private, undefined);
    assert.deepEqual(Object.keys(pkg.exports), ['.', './package.json']);
    assert.ok(Array.isArray(pkg.files));
    const files = execFileSync('tar', ['tzf', packed.tarball], { encoding: 'utf8' }).trim().split('\n').map((f) => f.replace(/^package\//, ''));
    for (const needed of ['package.json', 'README.md', 'bin/cloudtwin.js', 'bin/node24.js', 'bin/ownModules.js', 'bin/vendored.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/server.js', 'dist/services/compute/discovery/table.json', 'dist/vendor/kysely.mjs', 'dist/vendor/typebox.mjs', 'console/dist/index.html', 'protos/google/api/apikeys/v2/apikeys.proto']) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
    // kysely and TypeBox come from their bundles (a few modules, not five hundred): no compiled module names the packages.
    const dist = join(packed.project, 'node_modules', 'cloudtwin', 'dist');
    const naming = readdirSync(dist, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.js'))
      .map((e) => join(e.parentPath, e.name))
      .filter((f) => /(from\s*|import\(\s*)['"](kysely|@sinclair\/typebox(\/value)?)['"]/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(naming, []);
    const unwanted = files.filter(
      (f) => /^(src|test|bench|scripts|\.ci|node_modules)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /(^|\/)(master\.key|admin-token|cloudtwin\.lock|\.cloudtwin|\.env|\.npmrc)/.test(f) || /\.(db|tap|log)$/.test(f),
    );
    assert.deepEqual(unwanted, []);
  });

  for (const version of ['24', '22']) {
    describe(`installed in a fresh project, on Node ${version}`, () => {
      let node: string;
      let env: NodeJS.ProcessEnv;
      before(() => {
        node = version === '24' ? process.execPath : node22();
        env = shellWith(node);
        assert.equal(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim(), version);
      });

      it('npx cloudtwin serve: the ready line, the API, the admin API and the console; SIGTERM stops it', async () => {
        const p = await spawnReady('npx', ['cloudtwin', 'serve', '--port', '0', '--in-memory', '--admin-token', 'pkg-admin', '--log-level', 'warn'], /^cloudtwin listening on (http:\/\/\S+)$/m, { cwd: packed.project, env });
        try {
          const url = p.ready[1];
          const health = (await (await fetch(`${url}/_twin/v1/health`)).json()) as { status: string; version: string };
          assert.deepEqual([health.status, health.version], ['ok', VERSION]);
          const world = await fetch(`${url}/_twin/v1/world:apply`, { method: 'POST', headers: { authorization: 'Bearer pkg-admin', 'content-type': 'application/json' }, body: JSON.stringify({ projects: [{ projectId: 'demo-project', projectNumber: '300000000001' }] }) });
          assert.equal(world.status, 200);
          assert.equal((await fetch(`${url}/v2/projects/demo-project/locations/global/keys`)).status, 401);
          const consolePage = await fetch(`${url}/console/`);
          assert.equal(consolePage.status, 200);
          assert.match(await consolePage.text(), /<html/i);
          assert.doesNotMatch(p.stderr(), /Warning|EBADENGINE/, 'no warning before the output');
        } finally {
          // npx ends by the signal; the server it ran drains and exits (its port is closed).
          p.proc.kill('SIGTERM');
          await p.exited;
        }
        // The server sees npx go away (bin/node24.js stopWhenNpmGoesAway), drains and stops.
        let down = false;
        for (let i = 0; i < 50 && !down; i++) {
          down = await fetch(`${p.ready[1]}/_twin/v1/health`).then(() => false, () => true);
          if (!down) await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(down, 'the server stopped after npx was signalled');
      });

      it('the catalogue commands: generate, import, export', async () => {
        const dir = join(packed.project, `catalogue-${version}`);
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        // The installed command itself (npx resolves to it; npx's own start-up is paid once above).
        const bin = join(packed.project, 'node_modules', '.bin', 'cloudtwin');
        const gen = await run(bin, ['catalog', 'generate', '--videos', '60', '--no-progress', '-o', join(dir, 'c.ndjson')], packed.project, env);
        assert.equal(gen.code, 0, gen.stderr);
        const imp = await run(bin, ['catalog', 'import', join(dir, 'c.ndjson'), '--data-dir', join(dir, 'data'), '--no-progress'], packed.project, env);
        assert.equal(imp.code, 0, imp.stderr);
        const exp = await run(bin, ['catalog', 'export', '--data-dir', join(dir, 'data')], packed.project, env);
        assert.equal(exp.code, 0, exp.stderr);
        assert.equal(exp.stdout.trim().split('\n').length, readFileSync(join(dir, 'c.ndjson'), 'utf8').trim().split('\n').length);
        // generated into a store: by the generator's thread, dist/'s compiled module
        const stored = await run(bin, ['catalog', 'generate', '--videos', '60', '--no-progress', '--data-dir', join(dir, 'generated')], packed.project, env);
        assert.equal(stored.code, 0, stored.stderr);
        const again = await run(bin, ['catalog', 'export', '--data-dir', join(dir, 'generated')], packed.project, env);
        assert.equal(again.stdout, exp.stdout);
        const version_ = await run(bin, ['--version'], packed.project, env);
        assert.equal(version_.stdout.trim(), VERSION);
      });

      it("import('cloudtwin') starts a fixture, and the docs' node:test examples pass as written", async () => {
        const script = "const { startCloudtwin } = await import('cloudtwin'); const t = await startCloudtwin(); const h = await t.health(); await t.stop(); console.log(h.status, typeof t.clientOptions);";
        const imported = await run(node, ['--input-type=module', '-e', script], packed.project, env);
        assert.equal(imported.stdout.trim(), 'ok undefined'.replace('undefined', 'function'), imported.stderr);
        const examples = suiteExamples("'node:test'");
        assert.ok(examples.length >= 2 && examples[0].file === 'README.md', 'the README and the fixture page have node:test examples');
        for (const ex of examples) {
          const file = join(packed.project, `${exampleName(ex)}-${version}.test.mjs`);
          writeFileSync(file, ex.code);
          const r = await run(node, ['--test', '--test-reporter=tap', file], packed.project, env);
          assert.equal(r.code, 0, `${ex.file} line ${ex.line}:\n${r.stdout}\n${r.stderr}`);
          assert.match(r.stdout, /# pass [1-9]/);
        }
      });

      it("the docs' vitest example passes as written", async () => {
        const examples = suiteExamples("from 'vitest'");
        assert.ok(examples.length >= 1, 'the docs have a vitest example');
        for (const ex of examples) {
          const file = `${exampleName(ex)}-${version}.vitest.test.mjs`;
          writeFileSync(join(packed.project, file), ex.code);
          const r = await run(node, [join(packed.project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', file], packed.project, { ...env, CI: '1' });
          assert.equal(r.code, 0, `${ex.file} line ${ex.line}:\n${r.stdout}\n${r.stderr}`);
          assert.match(r.stdout, /1 passed/);
        }
      });

      it("the docs' jest example passes as written (NODE_OPTIONS=--experimental-vm-modules npx jest), and fails with a failing expect", async () => {
        const examples = suiteExamples('npx jest');
        assert.ok(examples.length >= 1, 'the docs have a jest example');
        const jest = (file: string) => run('npx', ['jest', '--ci', '--runTestsByPath', file], packed.project, { ...env, CI: '1', NODE_OPTIONS: '--experimental-vm-modules' });
        for (const ex of examples) {
          const tests = ex.code.match(/^test\(/gm)?.length ?? 0;
          assert.ok(tests >= 1, `${ex.file} line ${ex.line}: a jest test`);
          const file = `${exampleName(ex)}-${version}.jest.test.mjs`;
          writeFileSync(join(packed.project, file), ex.code);
          const r = await jest(file);
          assert.equal(r.code, 0, `${ex.file} line ${ex.line}:\n${r.stdout}\n${r.stderr}`);
          assert.match(r.stderr, new RegExp(`^Tests: +${tests} passed, ${tests} total$`, 'm'), r.stderr);
          // The same file with one more test whose expect fails: jest exits 1 and counts it.
          const failing = `${exampleName(ex)}-${version}.jest-failing.test.mjs`;
          writeFileSync(join(packed.project, failing), `${ex.code}\ntest('a failing expect', () => {\n  expect(1 + 1).toBe(3);\n});\n`);
          const f = await jest(failing);
          assert.equal(f.code, 1, `${f.stdout}\n${f.stderr}`);
          assert.match(f.stderr, new RegExp(`^Tests: +1 failed, ${tests} passed, ${tests + 1} total$`, 'm'), f.stderr);
        }
      });
    });
  }
});
