/** Browsers: CORS on the Google API surfaces; the admin API stays closed to other origins and hosts. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { hostnameOf, isOwnHost } from '../../src/platform/http/localSurface.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE } from '../support/world.ts';
import { createKey, keyPath, keysPath } from './helpers.ts';

const ORIGIN = 'http://app.example.test:3000';

describe('CORS on the API surfaces', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());

  it('answers a preflight without credentials, echoing the origin, the route methods and the requested headers', async () => {
    const res = await t.twin.app.inject({
      method: 'OPTIONS',
      url: keysPath(),
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'Authorization, Content-Type, X-Goog-Api-Client' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.deepEqual(String(res.headers['access-control-allow-methods']).split(',').sort(), ['GET', 'HEAD', 'POST']);
    assert.equal(res.headers['access-control-allow-headers'], 'authorization, content-type, x-goog-api-client');
    assert.equal(res.headers['access-control-max-age'], '3600');
    assert.match(String(res.headers.vary), /Origin/);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.equal(res.body, '');
  });

  it('allows the Google and app-restriction headers when none are named', async () => {
    const res = await t.twin.app.inject({ method: 'OPTIONS', url: keyPath('k1'), headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH' } });
    assert.equal(res.statusCode, 200);
    const allowed = String(res.headers['access-control-allow-headers']).split(/,\s*/);
    for (const h of ['authorization', 'content-type', 'x-goog-api-key', 'x-goog-api-client', 'x-goog-user-project', 'x-goog-request-params', 'x-goog-fieldmask', 'x-android-package', 'x-android-cert', 'x-ios-bundle-identifier']) {
      assert.ok(allowed.includes(h), `${h} in ${allowed}`);
    }
    assert.deepEqual(String(res.headers['access-control-allow-methods']).split(',').sort(), ['DELETE', 'GET', 'HEAD', 'PATCH']);
    const verb = await t.twin.app.inject({ method: 'OPTIONS', url: `${keyPath('k1')}:undelete`, headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    assert.equal(verb.statusCode, 200, 'custom verbs are routes too');
    assert.equal(verb.headers['access-control-allow-methods'], 'POST');
  });

  it('a requested header list that is not a list of names is not echoed', async () => {
    const res = await t.twin.app.inject({
      method: 'OPTIONS',
      url: '/v2/keys:lookupKey',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-a, <script>' },
    });
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(String(res.headers['access-control-allow-headers']), /script/);
  });

  it('a preflight for a path no method serves is a 404 without CORS headers', async () => {
    const res = await t.twin.app.inject({ method: 'OPTIONS', url: '/v9/nothing', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.equal(res.json().error.status, 'NOT_FOUND');
  });

  it('actual answers, successes and errors, name the origin and vary on it', async () => {
    await createKey(t, { keyId: 'cors-key' });
    const ok = await t.call(ALICE, { method: 'GET', url: keyPath('cors-key'), headers: { origin: ORIGIN } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
    assert.match(String(ok.headers.vary), /Origin/);
    assert.match(String(ok.headers['access-control-expose-headers']), /Content-Type/);
    const denied = await t.twin.app.inject({ method: 'GET', url: keyPath('cors-key'), headers: { origin: ORIGIN } });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.headers['access-control-allow-origin'], ORIGIN);
    const missing = await t.call(ALICE, { method: 'GET', url: keyPath('no-such-key'), headers: { origin: ORIGIN } });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['access-control-allow-origin'], ORIGIN);
  });

  it('answers without an Origin carry no CORS headers', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: keysPath() });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });
});

describe('the admin API stays closed to other origins and hosts', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ allowedHosts: ['twin.internal'] });
  });
  after(() => t.close());
  const auth = () => ({ authorization: `Bearer ${t.twin.adminToken}` });

  it('refuses preflights and adds no CORS header to admin answers', async () => {
    const pre = await t.twin.app.inject({ method: 'OPTIONS', url: '/_twin/v1/reset', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    assert.equal(pre.statusCode, 403);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    const get = await t.twin.app.inject({ method: 'GET', url: '/_twin/v1/clock', headers: { ...auth(), origin: ORIGIN } });
    assert.equal(get.statusCode, 200);
    for (const h of Object.keys(get.headers)) assert.ok(!h.startsWith('access-control-'), h);
    const metrics = await t.twin.app.inject({ method: 'GET', url: '/metrics', headers: { origin: ORIGIN } });
    assert.equal(metrics.headers['access-control-allow-origin'], undefined);
  });

  it('answers 403 to a Host that is not one of its names (DNS rebinding), even with the admin token', async () => {
    for (const host of ['evil.example', 'evil.example:8080', 'localhost.evil.example', '127.1']) {
      const res = await t.twin.app.inject({ method: 'GET', url: '/_twin/v1/clock', headers: { ...auth(), host } });
      assert.equal(res.statusCode, 403, host);
      assert.equal(res.json().error.status, 'PERMISSION_DENIED');
    }
    for (const host of ['localhost:8080', '127.0.0.1:9', '[::1]:8080', 'twin.internal', 'TWIN.internal:80', 'app.localhost', '10.1.2.3']) {
      const res = await t.twin.app.inject({ method: 'GET', url: '/_twin/v1/clock', headers: { ...auth(), host } });
      assert.equal(res.statusCode, 200, host);
    }
  });

  it('the API surfaces answer any Host (they carry their own credentials)', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: keysPath(), headers: { host: 'apikeys.googleapis.com' } });
    assert.equal(res.statusCode, 200);
  });

  it('refuses state changes a browser marks cross-site or whose Origin is another server (CSRF)', async () => {
    const forged = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://evil.example' },
      { origin: 'http://localhost:9999', host: 'localhost:8080' },
      { origin: 'null' },
    ];
    for (const h of forged) {
      const res = await t.twin.app.inject({ method: 'POST', url: '/_twin/v1/clock:advance', payload: { seconds: 1 }, headers: { ...auth(), ...h } });
      assert.equal(res.statusCode, 403, JSON.stringify(h));
    }
    const clock = (await t.admin('GET', '/_twin/v1/clock')).json();
    for (const h of [{ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:8080', host: 'localhost:8080' }, { 'sec-fetch-site': 'none' }, { origin: 'http://localhost', host: 'localhost:80' }]) {
      const res = await t.twin.app.inject({ method: 'POST', url: '/_twin/v1/clock:advance', payload: { seconds: 1 }, headers: { ...auth(), ...h } });
      assert.equal(res.statusCode, 200, `${JSON.stringify(h)}: ${res.body}`);
    }
    const after = (await t.admin('GET', '/_twin/v1/clock')).json();
    assert.notDeepEqual(after, clock);
  });
});

describe('the local surfaces are guarded on the path the router routes', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());
  const auth = () => ({ authorization: `Bearer ${t.twin.adminToken}` });
  // Each spelling routes to the same admin or console route as the first.
  const snapshot = ['/_twin/v1/snapshot', '/%5Ftwin/v1/snapshot', '/%5ftwin/v1/snapshot', '/_%74win/v1/%73napshot'];
  const consolePaths = ['/console/', '/%63onsole/', '/c%6Fnsole/'];

  it('a foreign Host is refused on an encoded admin or console path as on the plain one', async () => {
    for (const url of snapshot) {
      const res = await t.twin.app.inject({ method: 'GET', url, headers: { ...auth(), host: 'evil.example' } });
      assert.equal(res.statusCode, 403, url);
      assert.equal(res.json().error.status, 'PERMISSION_DENIED', url);
      const own = await t.twin.app.inject({ method: 'GET', url, headers: { ...auth(), host: 'localhost' } });
      assert.equal(own.statusCode, 200, `${url} routes to the snapshot`);
    }
    for (const url of consolePaths) {
      const res = await t.twin.app.inject({ method: 'GET', url, headers: { host: 'evil.example' } });
      assert.equal(res.statusCode, 403, url);
    }
  });

  it('a cross-origin state change is refused on an encoded admin path', async () => {
    for (const url of ['/_twin/v1/clock:advance', '/%5Ftwin/v1/clock:advance']) {
      const res = await t.twin.app.inject({ method: 'POST', url, payload: { seconds: 1 }, headers: { ...auth(), origin: 'http://evil.example' } });
      assert.equal(res.statusCode, 403, url);
    }
  });

  it('a preflight or a cross-origin answer on an encoded admin path carries no CORS permission', async () => {
    for (const url of ['/_twin/v1/reset', '/%5Ftwin/v1/reset', '/%5Ftwin/v1/snapshot']) {
      const pre = await t.twin.app.inject({ method: 'OPTIONS', url, headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
      assert.equal(pre.statusCode, 403, url);
      assert.equal(pre.headers['access-control-allow-origin'], undefined, url);
    }
    for (const url of snapshot) {
      const get = await t.twin.app.inject({ method: 'GET', url, headers: { ...auth(), origin: ORIGIN } });
      assert.equal(get.statusCode, 200, url);
      for (const h of Object.keys(get.headers)) assert.ok(!h.startsWith('access-control-'), `${url}: ${h}`);
    }
  });

  it('an absolute-form request target gets the answer its path gets', async () => {
    const listener = await t.twin.listen({ host: '127.0.0.1', port: 0 });
    try {
      const raw = (target: string, host: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(listener.port, '127.0.0.1');
          let out = '';
          socket.on('data', (d) => (out += d));
          socket.on('end', () => resolve(out));
          socket.on('error', reject);
          socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t.twin.adminToken}\r\nConnection: close\r\n\r\n`);
        });
      const status = (answer: string) => Number(answer.split(' ')[1]);
      for (const target of ['http://evil.example/_twin/v1/snapshot', 'http://evil.example/%5Ftwin/v1/snapshot', 'HTTP://evil.example/console/']) {
        assert.equal(status(await raw(target, 'evil.example')), 403, target);
      }
      assert.equal(status(await raw('http://localhost/_twin/v1/health', 'localhost')), 200);
    } finally {
      await listener.close();
    }
  });
});

describe('own host names', () => {
  it('parses Host headers', () => {
    assert.equal(hostnameOf('[::1]:8080'), '::1');
    assert.equal(hostnameOf('Example.COM.:80'), 'example.com');
    assert.equal(hostnameOf('localhost'), 'localhost');
  });
  it('accepts IP literals, localhost and configured names only', () => {
    const allowed = new Set(['twin.internal']);
    for (const h of ['127.0.0.1', '::1', '192.168.1.20', 'localhost', 'a.localhost', 'twin.internal']) assert.equal(isOwnHost(h, allowed), true, h);
    for (const h of ['', 'evil.example', '127.1', '0x7f.0.0.1', 'localhost.evil.example', 'twin.internal.evil']) assert.equal(isOwnHost(h, allowed), false, h);
  });
});
