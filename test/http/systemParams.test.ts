import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE } from '../support/world.ts';
import { KEY_STRING, assertError, createKey, fieldViolations, keyNameOf, keysPath } from './helpers.ts';

describe('system parameters and the HTTP envelope', () => {
  let t: TestTwin;
  const get = (url: string, headers: Record<string, string> = {}) => t.call(ALICE, { method: 'GET', url, headers });
  before(async () => {
    // The public API's body limit is 1 MiB here (the server's default may be larger for admin documents).
    t = await startTestTwin({ bodyLimit: 1024 * 1024 });
    await createKey(t, { keyId: 'sys-a', body: { displayName: 'A' } });
    await createKey(t, { keyId: 'sys-b', body: { displayName: 'B' } });
  });
  after(() => t.close());

  test('fields=keys(name,uid) keeps only those fields', async () => {
    const body = (await get(`${keysPath()}?fields=keys(name,uid)`)).json();
    assert.equal(body.keys.length, 2);
    for (const k of body.keys) assert.deepEqual(Object.keys(k), ['name', 'uid']);
  });

  test('fields with a page token and a nested path', async () => {
    const body = (await get(`${keysPath()}?pageSize=1&fields=${encodeURIComponent('nextPageToken,keys/name')}`)).json();
    assert.deepEqual(Object.keys(body).sort(), ['keys', 'nextPageToken']);
    assert.deepEqual(Object.keys(body.keys[0]), ['name']);
  });

  test('fields=response/keyString on an operation', async () => {
    const res = await t.call(ALICE, { method: 'POST', url: `${keysPath()}?fields=response/keyString`, payload: {} });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    assert.deepEqual(Object.keys(body.response), ['keyString']);
    assert.match(body.response.keyString, KEY_STRING);
  });

  test('fields applies to a failed operation too, never to an error envelope', async () => {
    const dup = await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=sys-a&fields=error/code`, payload: {} });
    assert.equal(dup.statusCode, 200);
    assert.deepEqual(dup.json(), { error: { code: 6 } });
    const err = assertError(await get(`${keysPath()}/missing?fields=name`), 404, 'NOT_FOUND');
    assert.ok(err.message);
  });

  test('a malformed fields value is 400', async () => {
    assertError(await get(`${keysPath()}?fields=keys(name`), 400, 'INVALID_ARGUMENT');
  });

  test('output is pretty by default; prettyPrint=false is compact', async () => {
    const pretty = await get(`${keysPath()}/sys-a`);
    assert.match(pretty.body, /^\{\n {2}"name": /);
    const compact = await get(`${keysPath()}/sys-a?prettyPrint=false`);
    assert.equal(compact.body, JSON.stringify(pretty.json()));
    assert.deepEqual(compact.json(), pretty.json());
    const compactError = await get(`${keysPath()}/missing?prettyPrint=false`);
    assert.equal(compactError.statusCode, 404);
    assert.equal(compactError.body, JSON.stringify(compactError.json()));
  });

  test('alt=json, $alt=json;enum-encoding=int, quotaUser and $.xgafv are accepted', async () => {
    for (const q of ['alt=json', `$alt=${encodeURIComponent('json;enum-encoding=int')}`, 'quotaUser=someone', '$.xgafv=2', 'key=AIzaUnused', 'callback=x']) {
      const res = await get(`${keysPath()}?${q}`);
      assert.equal(res.statusCode, 200, `${q}: ${res.body}`);
      assert.ok(res.json().keys.length >= 2);
    }
  });

  test('alt=proto is 400', async () => {
    assertError(await get(`${keysPath()}?alt=proto`), 400, 'INVALID_ARGUMENT', /alt/);
  });

  test('prettyPrint with a bad value is 400', async () => {
    assertError(await get(`${keysPath()}?prettyPrint=maybe`), 400, 'INVALID_ARGUMENT');
  });

  test('a body over 1 MiB is 413 in the Google envelope', async () => {
    const res = await t.call(ALICE, {
      method: 'POST',
      url: keysPath(),
      payload: JSON.stringify({ displayName: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    assertError(res, 413, 'INVALID_ARGUMENT', 'Request payload size exceeds the limit: 1048576 bytes.');
  });

  test('invalid JSON is 400 "Invalid JSON payload received..."', async () => {
    const res = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: '{"displayName": ', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid JSON payload received\./);
  });

  test('a body that is not JSON is 400', async () => {
    const res = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: '<key/>', headers: { 'content-type': 'application/xml' } });
    assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid JSON payload received\./);
  });

  test('a JSON body that is not an object is 400', async () => {
    const res = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: '[1]', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'INVALID_ARGUMENT');
  });

  test('wrong value types name the proto field and type', async () => {
    const before = (await get(keysPath())).json().keys.length;
    const err = assertError(await t.call(ALICE, { method: 'POST', url: keysPath(), payload: { displayName: 123 } }), 400, 'INVALID_ARGUMENT', `Invalid value at 'key.display_name' (TYPE_STRING), 123`);
    assert.deepEqual(fieldViolations(err), [{ field: 'key.display_name', description: `Invalid value at 'key.display_name' (TYPE_STRING), 123` }]);
    assertError(
      await t.call(ALICE, { method: 'POST', url: keysPath(), payload: { restrictions: { serverKeyRestrictions: { allowedIps: [1] } } } }),
      400,
      'INVALID_ARGUMENT',
      `Invalid value at 'key.restrictions.server_key_restrictions.allowed_ips[0]' (TYPE_STRING), 1`,
    );
    assertError(await t.call(ALICE, { method: 'POST', url: keysPath(), payload: { restrictions: { apiTargets: [{ service: true }] } } }), 400, 'INVALID_ARGUMENT', /^Invalid value at 'key\.restrictions\.api_targets\[0\]\.service' \(TYPE_STRING\), true$/);
    // nothing was created by the rejected requests
    assert.equal((await get(keysPath())).json().keys.length, before);
  });

  test('an unknown path is a 404 JSON envelope', async () => {
    for (const url of ['/v2/nothing/here', '/v3/projects/demo-project/locations/global/keys', '/']) {
      assertError(await get(url), 404, 'NOT_FOUND', /was not found on this server/);
    }
  });

  test('router-level rejections use the Google envelope too', async () => {
    assertError(await get(`${keysPath()}/${'a'.repeat(600)}`), 414, 'INVALID_ARGUMENT', /too long/);
    assertError(await get('/v2/projects/demo%ZZproject/locations/global/keys'), 400, 'INVALID_ARGUMENT', /not valid/);
  });

  test('GET /metrics is Prometheus text with request counters', async () => {
    const res = await t.twin.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /^# HELP cloudtwin_http_requests_total /m);
    assert.match(res.body, /^# TYPE cloudtwin_http_requests_total counter$/m);
    assert.match(res.body, /^cloudtwin_http_requests_total\{method="GET",route="\/v2\/projects\/:project\/locations\/:location\/keys",code="200"\} \d+$/m);
    assert.match(res.body, /^cloudtwin_http_request_duration_seconds_bucket\{/m);
  });

  test('responses name keys by number', async () => {
    const body = (await get(`${keysPath()}/sys-b`)).json();
    assert.equal(body.name, keyNameOf('sys-b'));
  });
});
