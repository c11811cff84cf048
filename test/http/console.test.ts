/** The console's static serving, the admin principal picker, and the Service Usage list it reads. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { registerConsole } from '../../src/console/plugin.ts';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE, CI_SA, DEMO, MALLORY, testWorld } from '../support/world.ts';
import { assertError } from './helpers.ts';

const VIEWER = 'user:svc-viewer@example.com';

describe('console', () => {
  let t: TestTwin;
  let dist: string;
  before(async () => {
    dist = ensureConsoleBuilt();
    t = await startTestTwin({
      world: {
        ...testWorld,
        iamPolicies: [...testWorld.iamPolicies, { resource: `projects/${DEMO.projectId}`, bindings: [{ role: 'roles/serviceusage.serviceUsageViewer', members: [VIEWER] }] }],
      },
    });
  });
  after(() => t.close());

  it('redirects /console to /console/ and serves the page, revalidated, with security headers', async () => {
    const r = await t.twin.app.inject({ method: 'GET', url: '/console' });
    assert.equal(r.statusCode, 308);
    assert.equal(r.headers.location, '/console/');
    const page = await t.twin.app.inject({ method: 'GET', url: '/console/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(page.body, /<div id="root">/);
  });

  it('serves hashed assets compressed and cached for a year; the first load is under 300 KB of gzipped JavaScript', async () => {
    const html = readFileSync(`${dist}index.html`, 'utf8');
    const scripts = [...html.matchAll(/src="(\/console\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    assert.ok(scripts.length > 0, html);
    let gzipped = 0;
    for (const url of scripts) {
      const r = await t.twin.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate' } });
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers['content-encoding'], 'gzip');
      assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(String(r.headers['content-type']), /^text\/javascript/);
      gzipped += r.rawPayload.length;
      assert.equal(gunzipSync(r.rawPayload).toString('utf8'), readFileSync(`${dist}${url.slice('/console/'.length)}`, 'utf8'));
    }
    assert.ok(gzipped < 300 * 1024, `first-load JavaScript is ${gzipped} bytes gzipped`);
    const br = await t.twin.app.inject({ method: 'GET', url: scripts[0], headers: { 'accept-encoding': 'br' } });
    assert.equal(br.headers['content-encoding'], 'br');
  });

  it('sends the copies compressed at build time as they are (no request compresses), and never serves them by their own names', async () => {
    const html = readFileSync(`${dist}index.html`, 'utf8');
    const script = /src="\/console\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    for (const [encoding, suffix] of [['br', '.br'], ['gzip', '.gz']] as const) {
      const r: LightMyRequestResponse = await t.twin.app.inject({ method: 'GET', url: `/console/${script}`, headers: { 'accept-encoding': encoding } });
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers['content-encoding'], encoding);
      assert.equal(r.headers.vary, 'Accept-Encoding');
      assert.deepEqual(r.rawPayload, readFileSync(`${dist}${script}${suffix}`), `${encoding}: the build's ${suffix} file`);
      const own: LightMyRequestResponse = await t.twin.app.inject({ method: 'GET', url: `/console/${script}${suffix}` });
      assert.equal(own.statusCode, 404);
    }
    const plain = await t.twin.app.inject({ method: 'GET', url: `/console/${script}`, headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.rawPayload, readFileSync(`${dist}${script}`));
  });

  it('a build without compressed copies is compressed at the first request, as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    try {
      mkdirSync(join(dir, 'assets'));
      const text = 'console.log("cloudtwin");\n'.repeat(100);
      writeFileSync(join(dir, 'assets', 'app-1.js'), text);
      writeFileSync(join(dir, 'index.html'), '<html></html>');
      const app = Fastify();
      registerConsole(app, dir);
      const br = await app.inject({ method: 'GET', url: '/console/assets/app-1.js', headers: { 'accept-encoding': 'br' } });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), text);
      const gz = await app.inject({ method: 'GET', url: '/console/assets/app-1.js', headers: { 'accept-encoding': 'gzip' } });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(gunzipSync(gz.rawPayload).toString('utf8'), text);
      await app.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a browser asking for / to the console; any other client gets a JSON 404 in Google envelope', async () => {
    const browser = await t.twin.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    assert.equal(browser.statusCode, 302);
    assert.equal(browser.headers.location, '/console/');
    for (const accept of [undefined, '*/*', 'application/json', 'text/html;q=0']) {
      const r = await t.twin.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
      assert.equal(r.statusCode, 404, String(accept));
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.deepEqual(r.json().error.status, 'NOT_FOUND');
      assert.equal(r.json().error.code, 404);
    }
  });

  it('never serves a file outside its build, and answers unknown files 404', async () => {
    for (const url of ['/console/..%2f..%2fpackage.json', '/console/%2e%2e/%2e%2e/package.json', '/console/nope.js']) {
      const r = await t.twin.app.inject({ method: 'GET', url });
      assert.notEqual(r.statusCode, 200, url);
      assert.doesNotMatch(r.body, /"name": "cloudtwin"/);
    }
  });

  it('is a local surface: another Host is refused', async () => {
    const r = await t.twin.app.inject({ method: 'GET', url: '/console/', headers: { host: 'evil.example' } });
    assert.equal(r.statusCode, 403);
  });

  it('the admin API lists the world projects and principals for the sign-in picker', async () => {
    const r = await t.admin('GET', '/_twin/v1/principals');
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json();
    assert.ok(body.projects.some((p: { projectId: string }) => p.projectId === DEMO.projectId));
    assert.ok(body.principals.includes(ALICE));
    assert.ok(body.principals.includes(`serviceAccount:${CI_SA}`));
    assert.equal((await t.twin.app.inject({ method: 'GET', url: '/_twin/v1/principals' })).statusCode, 401);
  });
});

describe('Service Usage services.list (the API-target picker)', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({
      world: {
        ...testWorld,
        iamPolicies: [...testWorld.iamPolicies, { resource: `projects/${DEMO.projectId}`, bindings: [{ role: 'roles/serviceusage.serviceUsageViewer', members: [VIEWER] }] }],
      },
    });
  });
  after(() => t.close());
  const url = `/v1/projects/${DEMO.projectId}/services`;

  it('lists the APIs cloudtwin serves to a serviceUsageViewer', async () => {
    const r = await t.call(VIEWER, { method: 'GET', url: `${url}?filter=state:ENABLED` });
    assert.equal(r.statusCode, 200, r.body);
    const names = r.json().services.map((s: { config: { name: string } }) => s.config.name);
    assert.deepEqual(names, ['apikeys.googleapis.com', 'compute.googleapis.com', 'youtube.googleapis.com']);
    assert.deepEqual(r.json().services[0], {
      name: `projects/${DEMO.projectNumber}/services/apikeys.googleapis.com`,
      config: { name: 'apikeys.googleapis.com', title: 'API Keys API' },
      state: 'ENABLED',
      parent: `projects/${DEMO.projectNumber}`,
    });
    assert.deepEqual((await t.call(VIEWER, { method: 'GET', url: `${url}?filter=state:DISABLED` })).json(), {});
  });

  it('needs serviceusage.services.list: an API Keys admin alone is denied, as the spec says', async () => {
    const r = await t.call(ALICE, { method: 'GET', url });
    assertError(r, 403, 'PERMISSION_DENIED', /serviceusage\.services\.list/);
    const outsider = await t.call(MALLORY, { method: 'GET', url: '/v1/projects/no-such-project/services' });
    assertError(outsider, 403, 'PERMISSION_DENIED');
  });

  it('rejects filters it does not understand', async () => {
    const r = await t.call(VIEWER, { method: 'GET', url: `${url}?filter=${encodeURIComponent('name:foo')}` });
    assertError(r, 400, 'INVALID_ARGUMENT', /Invalid filter/);
  });
});
