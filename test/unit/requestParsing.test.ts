import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_JSON_DEPTH, checkStrings, jsonTextTooDeep, parseJsonBody, urlProblem, valueTooDeep } from '../../src/platform/http/bodyParsing.ts';
import { ApiError } from '../../src/platform/http/errors.ts';
import { jsonName, toJsonNames } from '../../src/platform/http/jsonNames.ts';
import { inProtoRange, parseQueryBool, queryValidator } from '../../src/platform/http/queryParams.ts';
import { googlePath, routeLabel } from '../../src/platform/http/routes.ts';
import { echoValue, scrubSecrets } from '../../src/platform/http/secrets.ts';
import { parseFieldSelection } from '../../src/platform/http/fields.ts';

const KEY = 'AIzaSyA1234567890abcdefghijklmnopqrstuv';

const rejects = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 'INVALID_ARGUMENT' && message.test(e.message));

describe('JSON bodies', () => {
  test('depth: up to the limit parses, one more is refused before JSON.parse', () => {
    const at = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    assert.ok(Array.isArray(parseJsonBody(at)));
    rejects(() => parseJsonBody('[' + at + ']'), /Message too deep.*100 levels/);
    rejects(() => parseJsonBody('{"a":'.repeat(300) + '1' + '}'.repeat(300)), /too deep/);
  });

  test('brackets inside strings (with escaped quotes) do not count', () => {
    const s = JSON.stringify({ a: '[[[[\\"[['.repeat(100) + '"' });
    assert.equal(jsonTextTooDeep(s, 2), false);
    assert.equal(jsonTextTooDeep('{"a\\\\":[[[1]]]}', 3), true);
  });

  test('depth: many brackets side by side are not depth; the limit counts nesting only', () => {
    const wide = JSON.stringify({ a: Array.from({ length: 500 }, () => ({ b: [1] })) });
    // {"a":[{"b":[1]}, ...]}: 1,001 openings, 4 levels.
    assert.equal(jsonTextTooDeep(wide, 4), false);
    assert.equal(jsonTextTooDeep(wide, 3), true);
    // Few enough openings in all (strings included) cannot be too deep, whatever their order.
    assert.equal(jsonTextTooDeep('{"a":[{"b":"[["}]}', 3), false);
    assert.equal(jsonTextTooDeep('{"a":[{"b":[[1]]}]}', 4), true);
  });

  test('NUL and unpaired surrogates are refused, pairs are kept', () => {
    rejects(() => parseJsonBody('{"a":"\\u0000"}'), /NUL/);
    rejects(() => parseJsonBody('{"\\ud800":"x"}'), /unpaired surrogates/);
    assert.deepEqual(parseJsonBody('{"a":"\\ud83d\\ude00"}'), { a: '\u{1F600}' });
    assert.equal(parseJsonBody('  '), undefined);
  });

  test('syntax errors are worded as Google does, with a caret, and quote no key string', () => {
    rejects(() => parseJsonBody('q=test'), /^Invalid JSON payload received\. Unexpected token\.\nq=test\n\^$/);
    rejects(() => parseJsonBody('{"a": '), /^Invalid JSON payload received\. Unexpected end of string\./);
    assert.throws(() => parseJsonBody(`keyString=${KEY}`), (e: Error) => !e.message.includes(KEY));
  });

  test('value walks are iterative: a 100,000-deep value is measured and checked without recursion', () => {
    let v: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) v = [v];
    assert.equal(valueTooDeep(v, 100), true);
    assert.throws(() => checkStrings(v), /NUL/);
  });
});

describe('URLs', () => {
  test('NUL and non-UTF-8 escapes are refused; UTF-8 escapes pass', () => {
    assert.match(urlProblem('/a%00b')!.message, /NUL/);
    assert.match(urlProblem('/a?x=%FF')!.message, /not UTF-8/);
    assert.match(urlProblem('/a?x=%ED%A0%80')!.message, /not UTF-8/);
    assert.equal(urlProblem('/a?x=%C3%A9&y=%20'), undefined);
  });
});

describe('JSON names', () => {
  test('only proto-style names are converted; others are kept exactly, as own properties', () => {
    assert.equal(jsonName('display_name'), 'displayName');
    assert.equal(jsonName('sha1_fingerprint'), 'sha1Fingerprint');
    for (const n of ['__proto__', '_Proto__', 'a__b', '_x', 'x_', 'Display_Name', 'constructor']) assert.equal(jsonName(n), n);
    const out = toJsonNames(JSON.parse('{"__proto__": {"display_name": 1}, "key_string": "k"}')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__', 'keyString']);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')!.value, { displayName: 1 });
  });

  test('map fields keep their keys; the walk stops at the depth limit', () => {
    assert.deepEqual(toJsonNames({ annotations: { a_b: 'x' } }, new Set(['annotations'])), { annotations: { a_b: 'x' } });
    let deep: unknown = { a_b: 1 };
    for (let i = 0; i < 200; i++) deep = { x_y: deep };
    assert.throws(() => toJsonNames(deep), /too deep/);
  });
});

describe('query parameters', () => {
  test('booleans in any case', () => {
    for (const t of ['true', 'True', 'TRUE', 't', 'T', 'yes', 'Y', '1']) assert.equal(parseQueryBool(t), true, t);
    for (const f of ['false', 'False', 'f', 'NO', 'n', '0']) assert.equal(parseQueryBool(f), false, f);
    for (const x of ['maybe', '', '2', 'tru', 'constructor']) assert.equal(parseQueryBool(x), undefined, x);
  });

  test('integer ranges by proto type', () => {
    assert.equal(inProtoRange('2147483647', 'TYPE_INT32'), true);
    assert.equal(inProtoRange('2147483648', 'TYPE_INT32'), false);
    assert.equal(inProtoRange('-2147483648', 'TYPE_INT32'), true);
    assert.equal(inProtoRange('-1', 'TYPE_UINT32'), false);
    assert.equal(inProtoRange('4294967295', 'TYPE_UINT32'), true);
    assert.equal(inProtoRange('9223372036854775807', 'TYPE_INT64'), true);
    assert.equal(inProtoRange('9223372036854775808', 'TYPE_INT64'), false);
    assert.equal(inProtoRange('9'.repeat(500), 'TYPE_UINT64'), false);
  });

  test('the wrapped validator converts booleans, refuses repeats and out-of-range integers', () => {
    const schema = { type: 'object', properties: { flag: { type: 'boolean' }, n: { type: 'integer' }, s: { type: 'string' } } };
    const inner = Object.assign((d: any) => typeof d.flag !== 'string', { errors: null });
    const v = queryValidator(schema, inner);
    const q: Record<string, unknown> = { flag: 'False' };
    assert.equal(v(q), true);
    assert.equal(q.flag, false);
    assert.equal(v({ s: ['a', 'b'] }), false);
    assert.deepEqual((v.errors as any[])[0].keyword, 'repeated');
    assert.equal(v({ n: '99999999999' }), false);
    assert.deepEqual((v.errors as any[])[0].keyword, 'protoRange');
    assert.equal(v({ constructor: 'x' }), true, 'an inherited name is not a parameter of the schema');
  });
});

describe('custom verbs', () => {
  test('templates become router patterns and labels show the path', () => {
    assert.equal(googlePath('/v2/keys:lookupKey'), '/v2/keys::lookupKey');
    const p = googlePath('/v2/projects/{project}/locations/{location}/keys/{key}:undelete');
    assert.equal(p, '/v2/projects/:project/locations/:location/keys/:key([^:]+)::undelete');
    assert.equal(routeLabel(p), '/v2/projects/:project/locations/:location/keys/:key:undelete');
    assert.equal(routeLabel('/v2/keys::lookupKey'), '/v2/keys:lookupKey');
    assert.equal(googlePath('/compute/v1/projects/{project}/regions/{region}/operations/{operation}/wait'), '/compute/v1/projects/:project/regions/:region/operations/:operation/wait');
    assert.equal(googlePath('/v2/keys/{key}'), '/v2/keys/:key([^:]+)');
    assert.equal(routeLabel('/v2/keys/:key([^:]+)'), '/v2/keys/:key');
    assert.throws(() => googlePath('/a/{b}:verb/c'), /custom verb ends/);
    assert.throws(() => googlePath('/a/b c'), /not a path template/);
  });
});

describe('echoes of bad values', () => {
  test('a prefix, never the whole value; credentials masked', () => {
    assert.equal(echoValue('x'.repeat(1_000_000)).length <= 70, true);
    assert.match(echoValue('x'.repeat(100)), /^"x+\.\.\."$/);
    assert.equal(echoValue([1, 'a', { b: null }]), '[1,"a",{"b":null}]');
    assert.match(echoValue(new Array(1_000_000).fill(7)), /^\[7,7,.*\.\.\.$/);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.match(echoValue(deep), /^\[\[\[.*\.\.\.$/);
    assert.equal(echoValue(KEY), '"REDACTED"');
    assert.equal(scrubSecrets(`a ${KEY} b ya29.ct-abc_DEF.1 c`), 'a REDACTED b REDACTED c');
  });

  test('field selections nested past the limit are refused', () => {
    assert.ok(parseFieldSelection('a(b(c))'));
    assert.throws(() => parseFieldSelection('a('.repeat(200) + 'b' + ')'.repeat(200)), /Invalid field selection/);
    assert.throws(() => parseFieldSelection('a/'.repeat(200) + 'b'), /Invalid field selection/);
  });
});
