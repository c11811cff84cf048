/**
 * Start-up loads only what answering the first request needs (docs/operations.md, "Start-up and
 * lazy loading"): real `cloudtwin` processes, with a module hook recording every module they
 * load (npm packages, the sources, and at the ready line or at exit Node's built-in modules).
 * `--version` and `--help` load nothing of the server; `serve` loads neither the gRPC machinery
 * nor the local CA nor the catalogue tools nor Compute nor node:zlib (not even to send a compressed console file:
 * the build compressed them) until a request needs them; the PostgreSQL driver,
 * prom-client, yaml and jose are loaded when first needed, never at start on SQLite.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { vendoredSpecifiers } from '../../bin/vendored.js';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { spawnReady } from '../support/spawnReady.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY = /^cloudtwin listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

/** Packages that must not be loaded by a start on SQLite (each is loaded on its first use). */
const LAZY = ['pg', 'prom-client', 'yaml', 'jose', 'cli-progress', 'protobufjs'];

/** Modules loaded only when a request (or a command) needs them, by what needs them. */
const ON_DEMAND: Record<string, RegExp[]> = {
  gRPC: [/^src\/platform\/grpc\/(server|reflection)\.ts$/, /^protobufjs$/],
  TLS: [/^src\/platform\/transport\/localCa\.ts$/],
  'catalogue tools': [/^src\/services\/media\/catalog\/(bulk|generator|remote|progress)\.ts$/, /^cli-progress$/, /^@scure\/bip39$/],
  // Compute is built at its first request (services/compute/mount.ts): its world tables (catalogue,
  // the world's kinds, the discovery table), method tables and services.
  'Compute world': [/^src\/services\/compute\/(index|world|worldMethods|worldReader|worldResources|catalogue|methods)\.ts$/, /^src\/services\/compute\/(instanceTemplate|operation|store|discovery)\//],
  // An ES-module import of node:http reads its WebSocket getter, which loads undici (fetch).
  'an HTTP client': [/^node:internal\/deps\/undici\/undici$/],
  // The console's files are compressed at build time (console/vite.config.js); gRPC's message decompression is lazy.
  compression: [/^node:zlib$/],
};

/** The server itself: what `--version` and `--help` must not load. */
const SERVER = [/^src\/(server|start)\.ts$/, /^fastify$/, /^kysely$/, /^vendor:(fastify|pino|ajv|kysely|typebox|typebox-value)$/, /^src\/platform\/store\//];

/**
 * A preload that appends to $LOADED_FILE the npm package (`fastify`), bundle of
 * scripts/vendor-deps.js (`vendor:fastify`) or source file (`src/server.ts`) of every module the
 * process loads, and, when it prints its ready line, every
 * 25 ms after it and when it exits, every built-in module loaded so far
 * (`node:internal/deps/undici/undici`).
 */
const HOOK = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const root = ${JSON.stringify(new URL('../../', import.meta.url).href)};
const seen = new Set();
const note = (name) => {
  if (seen.has(name)) return;
  seen.add(name);
  appendFileSync(process.env.LOADED_FILE, name + '\\n');
};
const builtins = () => { for (const m of process.moduleLoadList) if (m.startsWith('NativeModule ')) note('node:' + m.slice(13)); };
registerHooks({
  load(url, context, next) {
    const v = /node_modules\\/\\.cloudtwin-vendor\\/([^/]+)\\.mjs$/.exec(url);
    const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url);
    if (v) note('vendor:' + v[1]);
    else if (m) note(m[1]);
    else if (url.startsWith(root + 'src/')) note(url.slice(root.length));
    return next(url, context);
  },
});
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  if (String(chunk).includes(' listening on ')) {
    builtins();
    // Built-in modules loaded later (process.getBuiltinModule passes no hook) are noted within 25 ms.
    setInterval(builtins, 25).unref();
  }
  return write.call(this, chunk, ...rest);
};
process.on('exit', builtins);
`;

/** The modules of `loaded` that `patterns` match. */
const matching = (loaded: Set<string>, patterns: RegExp[]) => [...loaded].filter((name) => patterns.some((p) => p.test(name)));

function assertNoneLoaded(loaded: Set<string>, groups: string[], when: string): void {
  for (const group of groups) assert.deepEqual(matching(loaded, ON_DEMAND[group]), [], `${when}: the ${group} modules are loaded`);
}

/** A directory for the module hook: the hook, the list it appends to, the environment that points it there, and the list as it stands. */
interface Hooked {
  loaded(): Set<string>;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/** A directory with the hook and an empty module list, and the environment that points the hook there. */
function hooked(prefix: string): Hooked {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'hook.mjs'), HOOK);
  writeFileSync(join(dir, 'loaded.txt'), '');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_'))), LOADED_FILE: join(dir, 'loaded.txt') };
  return { dir, env, loaded: () => new Set(readFileSync(join(dir, 'loaded.txt'), 'utf8').split('\n').filter(Boolean)) };
}

/** `cloudtwin serve ARGS` with the hook, to its ready line; `stop()` ends it and removes the directory. */
async function hookedServe(prefix: string, args: (dir: string) => string[]): Promise<Hooked & { url: string; stop(): Promise<void> }> {
  const h = hooked(prefix);
  const p = await spawnReady(process.execPath, ['--import', join(h.dir, 'hook.mjs'), BIN, 'serve', '--port', '0', '--log-level', 'warn', ...args(h.dir)], READY, { env: h.env });
  return {
    ...h,
    url: p.ready[1],
    async stop() {
      if (p.proc.exitCode === null) {
        p.proc.kill('SIGTERM');
        await p.exited;
      }
      rmSync(h.dir, { recursive: true, force: true });
    },
  };
}

describe('cloudtwin --version and --help load nothing of the server', () => {
  for (const flag of ['--version', '--help']) {
    it(`cloudtwin ${flag}`, async () => {
      const h = hooked('cloudtwin-startup-cli-');
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', join(h.dir, 'hook.mjs'), BIN, flag], { env: h.env, cwd: ROOT });
        assert.match(stdout, flag === '--version' ? /^\d+\.\d+\.\d+\n$/ : /^Usage: cloudtwin /);
        const loaded = h.loaded();
        assert.ok(loaded.has('src/cli/main.ts') && (loaded.has('commander') || loaded.has('vendor:commander')), `the hook sees the command's modules: ${[...loaded].filter((m) => !m.startsWith('node:')).join(', ')}`);
        assert.deepEqual(matching(loaded, SERVER), [], 'no module of the server is loaded');
        assertNoneLoaded(loaded, Object.keys(ON_DEMAND), `cloudtwin ${flag}`);
      } finally {
        rmSync(h.dir, { recursive: true, force: true });
      }
    });
  }
});

describe('cloudtwin serve loads heavy modules when first needed', () => {
  let db: TestDatabase;
  let server: Awaited<ReturnType<typeof hookedServe>>;
  let url: string;
  const loaded = () => server.loaded();

  before(async () => {
    ensureConsoleBuilt();
    db = await freshDatabase();
    server = await hookedServe('cloudtwin-startup-', (dir) => ['--admin-token', 'startup-admin', ...(db.url ? ['--database-url', db.url] : []), '--data-dir', join(dir, 'data')]);
    url = server.url;
  });

  after(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('at the ready line, none of the gRPC, TLS, catalogue-tool, Compute-world, HTTP-client or compression modules is loaded', () => {
    assertNoneLoaded(loaded(), Object.keys(ON_DEMAND), 'serve, at the ready line');
  });

  it('after the ready line and a first API request, none of the lazy packages is loaded (but for the store in use)', async () => {
    const res = await fetch(`${url}/v2/projects/no-such-project/locations/global/keys`);
    assert.equal(res.status, 401);
    const got = loaded();
    assert.ok((got.has('fastify') || got.has('vendor:fastify')) && (got.has('kysely') || got.has('vendor:kysely')), `the hook sees packages: ${[...got].join(', ')}`);
    for (const name of LAZY) {
      if (name === 'pg' && TEST_STORE === 'postgres') assert.ok(got.has('pg'), 'the PostgreSQL store loads its driver');
      else assert.equal(got.has(name), false, `${name} is loaded at start: ${[...got].join(', ')}`);
    }
  });

  it('fastify, pino, ajv, commander, kysely and TypeBox load from their bundles when npm ci made them (scripts/vendor-deps.js), else from node_modules', () => {
    const got = loaded();
    const packages = ['fastify', 'pino', 'ajv', 'commander', 'kysely', '@sinclair/typebox'];
    if (vendoredSpecifiers().size > 0) {
      for (const bundle of ['fastify', 'pino', 'ajv', 'commander', 'kysely', 'typebox']) assert.ok(got.has(`vendor:${bundle}`), `the ${bundle} bundle is used: ${[...got].join(', ')}`);
      // Nor any package of theirs: fastify's ajv, avvio, find-my-way, semver... are in the bundle.
      for (const pkg of [...packages, 'avvio', 'find-my-way', 'semver', 'light-my-request']) assert.equal(got.has(pkg), false, `${pkg} is not loaded from node_modules`);
    } else {
      for (const pkg of packages) assert.ok(got.has(pkg), `${pkg} is loaded from node_modules`);
    }
  });

  it('the sources loaded by then are ASCII only (V8 keeps each module source resident, two bytes a character if one is not Latin-1)', () => {
    const sources = [...loaded()].filter((name) => name.startsWith('src/'));
    assert.ok(sources.length > 50, `sources: ${sources.join(', ')}`);
    for (const file of sources) assert.doesNotMatch(readFileSync(join(ROOT, file), 'utf8'), /[^\x00-\x7f]/, `${file} has a non-ASCII character`);
  });

  it('a console file asked for compressed is answered compressed from the copies the build wrote: node:zlib is still not loaded', async () => {
    assertNoneLoaded(loaded(), ['compression'], 'serve, before any console file');
    const res = await fetch(`${url}/console/index.html`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<html/i);
    if (html.length > 512) assert.equal(res.headers.get('content-encoding'), 'gzip');
    const js = /src="\/console\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(js, `index.html names its script: ${html}`);
    const asset = await fetch(`${url}/console/${js}`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('content-encoding'), 'br');
    assert.ok((await asset.arrayBuffer()).byteLength > 0);
    await new Promise((r) => setTimeout(r, 100)); // the preload writes the built-in modules every 25 ms
    assertNoneLoaded(loaded(), ['compression'], 'serve, after compressed console files');
  });

  it('GET /metrics loads prom-client on first use and answers Prometheus text', async () => {
    const res = await fetch(`${url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^cloudtwin_http_requests_total\{/m);
    assert.ok(loaded().has('prom-client'));
  });

  it('a self-signed JWT loads jose on first use (and a forged one is refused)', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'f'.repeat(40) })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ iss: 'nobody@example.iam.gserviceaccount.com' })).toString('base64url');
    const res = await fetch(`${url}/v2/projects/no-such-project/locations/global/keys`, { headers: { authorization: `Bearer ${header}.${payload}.c2ln` } });
    assert.equal(res.status, 401);
    assert.ok(loaded().has('jose'));
  });

  it('a YAML body loads yaml on first use', async () => {
    const res = await fetch(`${url}/_twin/v1/operations/config`, {
      method: 'PUT',
      headers: { authorization: 'Bearer startup-admin', 'content-type': 'application/yaml' },
      body: 'mode: instant\n',
    });
    assert.equal(res.status, 200, await res.text());
    assert.ok(loaded().has('yaml'));
  });
});

describe('cloudtwin serve loads the gRPC machinery and Compute at their first call', () => {
  let server: Awaited<ReturnType<typeof hookedServe>>;
  let url: string;
  const loaded = () => server.loaded();

  before(async () => {
    server = await hookedServe('cloudtwin-startup-grpc-', () => ['--in-memory']);
    url = server.url;
  });

  after(async () => {
    await server?.stop();
  });

  it('serve --in-memory: not at the ready line; after a call (refused: no credentials), yes', async () => {
    assertNoneLoaded(loaded(), ['gRPC'], 'serve --in-memory, at the ready line');
    const session = connect(url);
    try {
      const status = await new Promise<string | undefined>((resolve, reject) => {
        const call = session.request({ ':method': 'POST', ':path': '/google.api.apikeys.v2.ApiKeys/GetKey', 'content-type': 'application/grpc', te: 'trailers' });
        let grpcStatus: string | undefined;
        call.on('response', (headers) => (grpcStatus ??= headers['grpc-status'] as string | undefined));
        call.on('trailers', (trailers) => (grpcStatus = trailers['grpc-status'] as string | undefined));
        call.on('end', () => resolve(grpcStatus));
        call.on('error', reject);
        call.resume();
        call.end(Buffer.from([0, 0, 0, 0, 0]));
      });
      assert.equal(status, '16', 'UNAUTHENTICATED');
    } finally {
      session.close();
    }
    assert.ok(matching(loaded(), ON_DEMAND.gRPC).length > 0, 'the gRPC machinery is loaded by the call');
  });

  it('Compute: not at the ready line; after a Compute request (refused: no credentials), yes', async () => {
    assertNoneLoaded(loaded(), ['Compute world'], 'serve --in-memory, before any Compute request');
    const res = await fetch(`${url}/compute/v1/projects/demo-project/global/networks`);
    assert.equal(res.status, 401);
    assert.ok(matching(loaded(), ON_DEMAND['Compute world']).length > 0, 'Compute is built by the request');
  });
});
