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

  test('query booleans are read in any case (gcloud sends True/False); anything else is 400 with the proto name', async () => {
    const all = (await get(`${keysPath()}?showDeleted=true`)).json().keys.length;
    for (const v of ['True', 'TRUE', 't', 'yes', 'Y', '1']) {
      const res = await get(`${keysPath()}?showDeleted=${v}`);
      assert.equal(res.statusCode, 200, `${v}: ${res.body}`);
      assert.equal(res.json().keys.length, all);
    }
    for (const v of ['False', 'FALSE', 'f', 'No', 'n', '0']) assert.equal((await get(`${keysPath()}?show_deleted=${v}`)).statusCode, 200, v);
    assertError(await get(`${keysPath()}?showDeleted=maybe`), 400, 'INVALID_ARGUMENT', `Invalid value at 'show_deleted' (TYPE_BOOL), "maybe"`);
    assertError(await get(`${keysPath()}?showDeleted=`), 400, 'INVALID_ARGUMENT', `Invalid value at 'show_deleted' (TYPE_BOOL), ""`);
    const compact = await get(`${keysPath()}/sys-a?prettyPrint=False`);
    assert.equal(compact.body, JSON.stringify(compact.json()));
    assertError(await get(`${keysPath()}?prettyPrint=maybe`), 400, 'INVALID_ARGUMENT', `Invalid value at 'pretty_print' (TYPE_BOOL), "maybe"`);
  });

  test('a singular parameter given twice is 400 naming it and quoting neither value', async () => {
    const secret = 'AIzaSyD' + '0'.repeat(32);
    for (const [q, name] of [
      [`keyString=A&keyString=${secret}`, 'key_string'],
      [`keyString=${secret}&keyString=${secret}&keyString=x`, 'key_string'],
    ] as const) {
      const res = await get(`/v2/keys:lookupKey?${q}`);
      assertError(res, 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Query parameter '${name}' was given more than once, but it takes a single value.`);
      assert.ok(!res.body.includes(secret));
    }
    const mixed = await get(`/v2/keys:lookupKey?key_string=${secret}&keyString=${secret}`);
    assertError(mixed, 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Field 'key_string' was given more than once (as 'key_string' and 'keyString'), but it takes a single value.`);
    assertError(await get(`${keysPath()}?pageSize=1&pageSize=2`), 400, 'INVALID_ARGUMENT', /'page_size' was given more than once/);
    const sys = await get(`${keysPath()}?key=${secret}&key=${secret}`);
    assertError(sys, 400, 'INVALID_ARGUMENT', /'key' was given more than once/);
    assert.ok(!sys.body.includes(secret));
  });

  test('a secret-bearing value of the wrong type is named, never quoted', async () => {
    const secret = 'AIzaSyD' + '1'.repeat(32);
    const res = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: { keyString: [secret] } });
    assertError(res, 400, 'INVALID_ARGUMENT', `Invalid value at 'key.key_string' (TYPE_STRING)`);
    const res2 = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: { displayName: { note: secret } } });
    assertError(res2, 400, 'INVALID_ARGUMENT', /^Invalid value at 'key\.display_name' \(TYPE_STRING\), \{"note":"REDACTED"\}$/);
  });

  test('custom verbs are routed by the router: an unknown verb or no verb is the URL-not-found 404', async () => {
    for (const url of [`${keysPath()}/sys-a:frobnicate`, `${keysPath()}/sys-a`, `${keysPath()}/sys-a:undelete:undelete`]) {
      assertError(await t.call(ALICE, { method: 'POST', url, payload: {} }), 404, 'NOT_FOUND', /was not found on this server/);
    }
    assertError(await t.call(ALICE, { method: 'POST', url: `${keysPath()}/sys-a:undelete`, payload: {} }), 400, 'FAILED_PRECONDITION');
    const metrics = (await t.twin.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^cloudtwin_http_requests_total\{method="POST",route="\/v2\/projects\/:project\/locations\/:location\/keys\/:key:undelete",code="400"\} \d+$/m);
    assert.match(metrics, /route="\/v2\/keys:lookupKey"/);
  });

  test('responses name keys by number', async () => {
    const body = (await get(`${keysPath()}/sys-b`)).json();
    assert.equal(body.name, keyNameOf('sys-b'));
  });
});
