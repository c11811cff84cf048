import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';
import { createHttpApp } from '../../src/platform/http/app.ts';
import { ApiError } from '../../src/platform/http/errors.ts';
import { KEY_STRING, assertError, createKey } from './helpers.ts';

/**
 * Input no store can hold or no parser expects must end in a clear 4xx in Google's envelope,
 * never a 500 and never an operation that fails inside (PostgreSQL cannot store U+0000 in text).
 */
const base = `/v2/projects/${DEMO.projectId}/locations/global/keys`;
const token = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

describe('hostile input', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());

  const cases: [string, (t: TestTwin) => ReturnType<TestTwin['call']>][] = [
    ['NUL in a key path', (t) => t.call(ALICE, { method: 'GET', url: `${base}/a%00b` })],
    ['NUL in an operation name', (t) => t.call(ALICE, { method: 'GET', url: '/v2/operations/x%00y' })],
    ['NUL in displayName', (t) => t.call(ALICE, { method: 'POST', url: base, payload: { displayName: 'a\u0000b' } })],
    ['NUL in an annotation value', (t) => t.call(ALICE, { method: 'POST', url: base, payload: { annotations: { a: 'b\u0000' } } })],
    ['NUL in an annotation key', (t) => t.call(ALICE, { method: 'POST', url: base, payload: { annotations: { 'a\u0000': 'b' } } })],
    ['NUL in keyString', (t) => t.call(ALICE, { method: 'GET', url: '/v2/keys:lookupKey?keyString=AIza%00' })],
    ['a page token with a forged cursor', (t) => t.call(ALICE, { method: 'GET', url: `${base}?pageToken=${token(['300000000001', 0, 1, 'x\u0000'])}` })],
    ['a page token with an out-of-range time', (t) => t.call(ALICE, { method: 'GET', url: `${base}?pageToken=${token(['300000000001', 0, 1e300, '0b3a2c1e-5f4d-4a6b-8c7d-9e0f1a2b3c4d'])}` })],
    ['NUL in a world document', (t) => t.admin('POST', '/_twin/v1/world:apply', { organizations: [{ id: '5', domain: 'a\u0000' }] })],
    ['NUL in a token principal', (t) => t.admin('POST', '/_twin/v1/tokens', { principal: 'user:a\u0000@b.c' })],
  ];
  for (const [name, send] of cases) {
    test(`${name}: 400 INVALID_ARGUMENT`, async () => {
      const res = await send(t);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.status, 'INVALID_ARGUMENT');
    });
  }

  const post = (payload: string, contentType = 'application/json') => t.call(ALICE, { method: 'POST', url: base, payload, headers: { 'content-type': contentType } });

  test('a body nested 200,000 levels deep is 400 naming the limit, in the Google envelope', async () => {
    const res = await post('['.repeat(200_000) + ']'.repeat(200_000));
    assertError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Message too deep: nesting exceeds the limit of 100 levels.');
  });

  test('a map value nested 5,000 levels deep is the same 400, not a 500 from the error path', async () => {
    const deep = '{"annotations":' + '{"a":'.repeat(5000) + '"x"' + '}'.repeat(5000) + '}';
    const res = await post(deep);
    assertError(res, 400, 'INVALID_ARGUMENT', /Message too deep.*100/);
  });

  test('nesting up to the limit is parsed (and then validated as usual)', async () => {
    const res = await post('{"restrictions":' + '['.repeat(98) + ']'.repeat(98) + '}');
    assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid value at 'key\.restrictions' \(TYPE_MESSAGE\), \[\[\[/);
  });

  test('a fields selector nested 50,000 levels deep is 400, not a stack overflow', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: `${base}?fields=${'a('.repeat(50_000)}b${')'.repeat(50_000)}` });
    assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid field selection a\(a\(/);
    assert.ok(res.body.length < 1000, `answer of ${res.body.length} bytes`);
  });

  test('a 3 MB string where a list is expected answers a small 400 that quotes a short prefix', async () => {
    const big = 'y'.repeat(3 * 1024 * 1024);
    const res = await post(JSON.stringify({ restrictions: { browserKeyRestrictions: { allowedReferrers: big } } }));
    const err = assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid value at 'key\.restrictions\.browser_key_restrictions\.allowed_referrers' \(TYPE_MESSAGE\), "y{10,64}\.\.\."$/);
    assert.ok(res.body.length < 2000, `answer of ${res.body.length} bytes`);
    assert.ok(err.message.length < 200);
  });

  test('an unknown field name of 1 MB is quoted as a short prefix', async () => {
    const res = await post(JSON.stringify({ ['n'.repeat(1024 * 1024)]: 1 }));
    assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid JSON payload received\. Unknown name "n{100}\.\.\." at 'key': Cannot find field\.$/);
    assert.ok(res.body.length < 2000);
  });

  test('a lone surrogate in a string is refused (it would come back changed)', async () => {
    for (const payload of ['{"displayName":"\\ud800x"}', '{"annotations":{"\\udfff":"v"}}', '{"displayName":"x\\uDBFF"}']) {
      assertError(await post(payload), 400, 'INVALID_ARGUMENT', /unpaired surrogates/);
    }
  });

  test('a surrogate pair (an emoji) is kept exactly', async () => {
    const res = await post('{"displayName":"smile \\ud83d\\ude00"}');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().response.displayName, 'smile \u{1F600}');
    await t.call(ALICE, { method: 'DELETE', url: `/v2/${res.json().response.name.replace(/^projects\/\d+/, `projects/${DEMO.projectId}`)}` });
  });

  test('invalid UTF-8 in a body is refused, never replaced by U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"displayName":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await t.call(ALICE, { method: 'POST', url: base, payload: bytes, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. The body is not valid UTF-8.');
  });

  test('percent-escapes that are not UTF-8 (encoded surrogates too) are refused in paths and queries', async () => {
    for (const url of [`${base}?pageToken=%FF`, `${base}?pageToken=%ED%A0%80`, `${base}/k%C3`, '/v2/keys:lookupKey?keyString=%ED%BF%BF']) {
      assertError(await t.call(ALICE, { method: 'GET', url }), 400, 'INVALID_ARGUMENT', /not valid/);
    }
    // Valid UTF-8 escapes pass the check (and reach the method).
    assert.equal((await t.call(ALICE, { method: 'GET', url: `${base}?pageSize=%31` })).statusCode, 200);
  });

  test('integer query parameters outside their proto type are 400 quoting the text sent', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: `${base}?pageSize=99999999999999999999` }), 400, 'INVALID_ARGUMENT', `Invalid value at 'page_size' (TYPE_INT32), "99999999999999999999"`);
    assertError(await t.call(ALICE, { method: 'GET', url: `${base}?pageSize=2147483648` }), 400, 'INVALID_ARGUMENT', `Invalid value at 'page_size' (TYPE_INT32), "2147483648"`);
    assertError(await t.call(ALICE, { method: 'GET', url: `${base}?page_size=-2147483649` }), 400, 'INVALID_ARGUMENT', `Invalid value at 'page_size' (TYPE_INT32), "-2147483649"`);
    assert.equal((await t.call(ALICE, { method: 'GET', url: `${base}?pageSize=2147483647` })).statusCode, 200);
  });

  test('a form-encoded body on an API method is read as JSON, as ESF does: 400, nothing created', async () => {
    const res = await post('displayName=formed', 'application/x-www-form-urlencoded');
    assertError(res, 400, 'INVALID_ARGUMENT', /^Invalid JSON payload received\. Unexpected token\.\ndisplayName=formed\n\^$/);
  });

  test('a text/plain body on an API method is read as JSON whatever the Content-Type says', async () => {
    assertError(await post('not json', 'text/plain'), 400, 'INVALID_ARGUMENT', /^Invalid JSON payload received\. Unexpected token\./);
    assertError(await post('{"displayName": 5}', 'text/plain'), 400, 'INVALID_ARGUMENT', `Invalid value at 'key.display_name' (TYPE_STRING), 5`);
    assertError(await post('{"displayName": 5}', 'application/yaml'), 400, 'INVALID_ARGUMENT', `Invalid value at 'key.display_name' (TYPE_STRING), 5`);
    assertError(await post('displayName: x', 'application/yaml'), 400, 'INVALID_ARGUMENT', /^Invalid JSON payload received\. Unexpected token\./);
  });

  test('__proto__, constructor and other names are reported exactly as sent', async () => {
    assertError(await post('{"__proto__": {"displayName": "x"}}'), 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "__proto__" at 'key': Cannot find field.`);
    assertError(await post('{"_Proto__": 1}'), 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "_Proto__" at 'key': Cannot find field.`);
    assertError(await post('{"restrictions": {"constructor": {}}}'), 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "constructor" at 'key.restrictions': Cannot find field.`);
    assertError(await post('{"display__name": "x"}'), 400, 'INVALID_ARGUMENT', /Unknown name "display__name"/);
    // A proto name is still accepted for its JSON name.
    assertError(await post('{"display_name": 7}'), 400, 'INVALID_ARGUMENT', `Invalid value at 'key.display_name' (TYPE_STRING), 7`);
  });

  test('annotations named constructor or toString are kept as data, through a fields selection too; __proto__ is named in its 400', async () => {
    assertError(await post('{"annotations":{"__proto__":"p"}}'), 400, 'INVALID_ARGUMENT', /^Invalid annotation key '__proto__'/);
    const key = await createKey(t, { body: { annotations: { constructor: 'c', toString: 't', hasOwnProperty: 'h' } } });
    assert.deepEqual(key.annotations, { constructor: 'c', toString: 't', hasOwnProperty: 'h' });
    const id = key.name.split('/').pop();
    const res = await t.call(ALICE, { method: 'GET', url: `${base}/${id}?fields=annotations(constructor,toString)` });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { annotations: { constructor: 'c', toString: 't' } });
    await t.call(ALICE, { method: 'DELETE', url: `${base}/${id}` });
  });

  test('world documents: prototype names are unknown fields, huge values are echoed as a short prefix', async () => {
    const proto = await t.admin('POST', '/_twin/v1/world:apply', JSON.parse('{"__proto__": {"projects": []}, "constructor": 1, "organizations": [{"id": "7", "toString": "x"}]}'));
    const err = assertError(proto, 400, 'INVALID_ARGUMENT', /__proto__: is not a known field/);
    assert.match(err.message, /constructor: is not a known field/);
    assert.match(err.message, /organizations\[0\]\.toString: is not a known field/);
    const role = await t.admin('POST', '/_twin/v1/world:apply', { iamPolicies: [{ resource: `projects/${DEMO.projectId}`, bindings: [{ role: 'roles/constructor', members: [ALICE] }] }] });
    assertError(role, 400, 'INVALID_ARGUMENT', /unknown role 'roles\/constructor'/);
    const big = await t.admin('POST', '/_twin/v1/world:apply', { organizations: [{ id: '7', displayName: 'd'.repeat(3 * 1024 * 1024) }] });
    assertError(big, 400, 'INVALID_ARGUMENT', /displayName: .*\(got "d{10,64}\.\.\."\)/);
    assert.ok(big.body.length < 3000, `answer of ${big.body.length} bytes`);
  });

  test('nothing was stored by the rejected creates', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: `${base}?showDeleted=true` });
    assert.equal(res.statusCode, 200);
    // Only the keys the accepting tests made (and deleted) exist.
    for (const k of res.json().keys ?? []) assert.ok(k.deleteTime, JSON.stringify(k));
  });
});

describe('the error path cannot throw', () => {
  const lines: string[] = [];
  const app = createHttpApp({ logger: { level: 'error', stream: { write: (l: string) => lines.push(l) } }, bodyLimit: 1024 });
  // An error whose answer cannot be serialized (a BigInt in its details), and an error with a hostile getter.
  app.get('/unserializable', async () => {
    throw new ApiError({ status: 'INVALID_ARGUMENT', message: 'x', details: [{ n: 1n }] });
  });
  app.get('/hostile', { config: { envelope: 'compute' } }, async () => {
    const err = new Error('internal detail: /srv/secret/path');
    Object.defineProperty(err, 'validation', { get: () => { throw new Error('getter exploded'); } });
    throw err;
  });
  app.get('/driver', async () => {
    throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', detail: 'Key (key_string)=(AIzaSyD00000000000000000000000000000000) already exists.' });
  });
  app.get('/stack', async () => {
    throw new TypeError('Cannot read properties of undefined (reading \'x\') at /work/src/thing.ts:1');
  });
  after(() => app.close());

  test('an error answer that cannot be serialized is a 500 Google envelope, logged once', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/unserializable' });
    assertError(res, 500, 'INTERNAL', 'Internal error encountered.');
    assert.equal(lines.filter((l) => /request failed/.test(l)).length, 1, lines.join(''));
  });

  test('an error handler that meets a throwing getter still answers in the route style (compute)', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/hostile' });
    assert.equal(res.statusCode, 500);
    const body = res.json();
    assert.deepEqual(body, { error: { code: 500, message: 'Internal error encountered.', errors: [{ message: 'Internal error encountered.', domain: 'global', reason: 'backendError' }] } });
    assert.equal(lines.filter((l) => /request failed/.test(l)).length, 1, lines.join(''));
    assert.match(lines.join(''), /getter exploded/);
  });

  test("a request Node's HTTP parser refuses (raw non-ASCII in the URL) is answered in the Google envelope", async () => {
    const srv = createHttpApp({ logger: false, bodyLimit: 1024 });
    srv.get('/p/:x', async () => ({}));
    await srv.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (srv.server.address() as AddressInfo).port;
      for (const bytes of [[0xc3, 0xa9], [0xff], [0xed, 0xa0, 0x80]]) {
        const request = Buffer.concat([Buffer.from('GET /p/a'), Buffer.from(bytes), Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]);
        const answer = await new Promise<string>((resolve, reject) => {
          const s = connect(port, '127.0.0.1', () => s.end(request));
          let d = '';
          s.on('data', (c) => (d += c));
          s.on('close', () => resolve(d));
          s.on('error', reject);
        });
        assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
        const body = JSON.parse(answer.split('\r\n\r\n')[1]);
        assert.deepEqual(body, { error: { code: 400, message: 'The request could not be read.', status: 'INVALID_ARGUMENT' } });
      }
    } finally {
      await srv.close();
    }
  });

  test("a driver error is logged once with its detail, and a key string in it is masked", async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/driver' });
    assertError(res, 500, 'INTERNAL', 'Internal error encountered.');
    const logged = lines.filter((l) => /request failed/.test(l));
    assert.equal(logged.length, 1, lines.join(''));
    const entry = JSON.parse(logged[0]);
    assert.equal(entry.err.code, '23505');
    assert.equal(entry.err.detail, 'Key (key_string)=(REDACTED) already exists.');
    assert.match(entry.err.stack, /duplicate key value/);
  });

  test('an internal exception answers no stack and no internal message', async () => {
    const res = await app.inject({ method: 'GET', url: '/stack' });
    assertError(res, 500, 'INTERNAL', 'Internal error encountered.');
    assert.doesNotMatch(res.body, /thing\.ts|TypeError|reading/);
  });
});
