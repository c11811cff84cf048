/**
 * Start-up loads only what answering the first request needs (docs/operations.md, "Start-up and
 * lazy loading"): a real `cloudtwin serve` process, with a module hook recording every package
 * it loads. The PostgreSQL driver, prom-client, yaml and jose are loaded when first needed, never
 * at start on SQLite.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { vendoredSpecifiers } from '../../bin/vendored.js';
import { spawnReady } from '../support/spawnReady.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));
const READY = /^cloudtwin listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

/** Packages that must not be loaded by a start on SQLite (each is loaded on its first use). */
const LAZY = ['pg', 'prom-client', 'yaml', 'jose', 'cli-progress', 'protobufjs'];

/** A preload that appends the name of every npm package the process loads to $LOADED_FILE. */
const HOOK = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const seen = new Set();
registerHooks({
  load(url, context, next) {
    const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url);
    if (m && !seen.has(m[1])) {
      seen.add(m[1]);
      appendFileSync(process.env.LOADED_FILE, m[1] + '\\n');
    }
    return next(url, context);
  },
});
`;

describe('cloudtwin serve loads heavy modules when first needed', () => {
  let dir: string;
  let db: TestDatabase;
  let proc: ChildProcess;
  let url: string;
  const loaded = () => new Set(readFileSync(join(dir, 'loaded.txt'), 'utf8').split('\n').filter(Boolean));

  before(async () => {
    db = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-startup-'));
    writeFileSync(join(dir, 'hook.mjs'), HOOK);
    writeFileSync(join(dir, 'loaded.txt'), '');
    const args = ['--import', join(dir, 'hook.mjs'), BIN, 'serve', '--port', '0', '--admin-token', 'startup-admin', '--log-level', 'warn'];
    args.push(...(db.url ? ['--database-url', db.url, '--data-dir', join(dir, 'data')] : ['--data-dir', join(dir, 'data')]));
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDTWIN_'))), LOADED_FILE: join(dir, 'loaded.txt') };
    const p = await spawnReady(process.execPath, args, READY, { env });
    proc = p.proc;
    url = p.ready[1];
  });

  after(async () => {
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });

  it('after the ready line and a first API request, none of the lazy packages is loaded (but for the store in use)', async () => {
    const res = await fetch(`${url}/v2/projects/no-such-project/locations/global/keys`);
    assert.equal(res.status, 401);
    const got = loaded();
    assert.ok(got.has('fastify') && (got.has('kysely') || got.has('.cloudtwin-vendor')), `the hook sees packages: ${[...got].join(', ')}`);
    for (const name of LAZY) {
      if (name === 'pg' && TEST_STORE === 'postgres') assert.ok(got.has('pg'), 'the PostgreSQL store loads its driver');
      else assert.equal(got.has(name), false, `${name} is loaded at start: ${[...got].join(', ')}`);
    }
  });

  it('kysely and TypeBox load from their bundles when npm ci made them (scripts/vendor-deps.js), else from node_modules', () => {
    const got = loaded();
    if (vendoredSpecifiers().size > 0) {
      assert.ok(got.has('.cloudtwin-vendor'), `the bundles are used: ${[...got].join(', ')}`);
      assert.equal(got.has('kysely'), false, 'kysely is not loaded from node_modules/kysely');
      assert.equal(got.has('@sinclair/typebox'), false, 'TypeBox is not loaded from node_modules/@sinclair/typebox');
    } else {
      assert.ok(got.has('kysely') && got.has('@sinclair/typebox'));
    }
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
