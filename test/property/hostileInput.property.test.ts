import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, CAROL, MALLORY } from '../support/world.ts';
import { createKey } from '../http/helpers.ts';
import { INTERNALS, appRoutes, fillPath, queryNames } from './routes.ts';
import type { RouteInfo } from '../../src/platform/http/routes.ts';

/**
 * Hostile input at every route of every service the app has (read from its own route table, so
 * services that land later are covered without touching this file): random deep and wide JSON,
 * random bytes and random content types; Object.prototype names and random strings as mask
 * paths, fields selectors, enum values and query parameter names. Never a 5xx, never internals
 * in an answer, the server stays up, and nothing stored changes.
 */
const RUNS = Number(process.env.CLOUDTWIN_PROPERTY_RUNS ?? 300);
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype);
/** Every API's scopes, so that scope checks (which come before parsing) let each request through. */
const ALL_SCOPES = ['cloud-platform', 'youtube', 'youtube.readonly', 'youtube.force-ssl', 'youtubepartner'].map((s) => `https://www.googleapis.com/auth/${s}`);

describe('hostile input at every route (property)', () => {
  let t: TestTwin;
  let routes: RouteInfo[];
  let keyId: string;
  let before_: string;
  const extra = new Map<string, string>();

  before(async () => {
    t = await startTestTwin();
    const key = await createKey(t, { keyId: 'prop-key', body: { displayName: 'kept', annotations: { a: 'b' } } });
    keyId = key.name.split('/').pop();
    extra.set('key', keyId);
    routes = await appRoutes(t.twin.app);
    // Warm the token cache so minting does not count as a change.
    await t.call(ALICE, { method: 'GET', url: '/v2/keys:lookupKey?keyString=x' });
    await t.call(MALLORY, { method: 'GET', url: '/v2/keys:lookupKey?keyString=x' });
    before_ = await snapshot();
  });
  after(() => t?.close());

  async function snapshot(): Promise<string> {
    const res = await t.admin('GET', '/_twin/v1/snapshot');
    assert.equal(res.statusCode, 200, res.body);
    const snap = res.json();
    // Tokens minted for the callers are credentials, not resources.
    delete snap.takenAt;
    delete snap.tables?.access_tokens;
    // Quota counters count reads (a successful media read costs quota): usage, not a stored resource.
    delete snap.tables?.quota_usage;
    return JSON.stringify(snap);
  }

  /** A Compute method cloudtwin does not offer answers 501 notImplemented by design (docs/differences.md): not a failure. */
  const notOffered = (res: LightMyRequestResponse) => res.statusCode === 501 && /"reason": ?"notImplemented"/.test(res.body);

  function check(route: RouteInfo, res: LightMyRequestResponse, what: string): void {
    assert.ok(res.statusCode < 500 || notOffered(res), `${route.method} ${route.url} ${what}: ${res.statusCode} ${res.body.slice(0, 500)}`);
    assert.doesNotMatch(res.body.slice(0, 100_000), INTERNALS, `${route.method} ${route.url} ${what}: internals in ${res.body.slice(0, 500)}`);
    if (res.statusCode >= 400 && /json/.test(String(res.headers['content-type']))) {
      const body = res.json();
      assert.ok(body && typeof body === 'object' && 'error' in body, `${route.method} ${route.url} ${what}: no error envelope: ${res.body.slice(0, 300)}`);
    }
  }

  /** Whoever may not change anything: reads as the owner, everything else as a stranger. */
  const callerOf = (route: RouteInfo) => (route.method === 'GET' ? ALICE : MALLORY);

  test('the route table covers every service', () => {
    const urls = routes.map((r) => r.url);
    assert.ok(urls.some((u) => u.startsWith('/v2/')), 'API Keys routes');
    assert.ok(routes.length >= 10, `${routes.length} routes`);
  });

  const deepJson = fc.integer({ min: 90, max: 3000 }).chain((depth) =>
    fc.constantFrom('[', '{"a":', '{"annotations":{"x":', '{"restrictions":').map((open) => {
      const close = open === '[' ? ']' : '}'.repeat(open.split('{').length - 1);
      return open.repeat(depth) + '1' + close.repeat(depth);
    }),
  );
  const wideJson = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 60 }).map((o) => JSON.stringify(o));
  const randomJson = fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v));
  const bytes = fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a));
  const body = fc.oneof(deepJson, wideJson, randomJson, bytes, fc.string({ maxLength: 200 }));
  const contentType = fc.oneof(
    fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/yaml', 'text/yaml', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1', 'application/octet-stream', '*/*', ''),
    fc.string({ maxLength: 30 }),
  );
  const queryText = fc.array(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 })), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

  test('random deep and wide JSON, random bytes and content types: never a 5xx, never internals', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), body, contentType, queryText, fc.boolean(), async (i, payload, type, query, randomParams) => {
        const route = routes[i % routes.length];
        const pick = randomParams ? (name: string) => (name.length % 2 ? 'a'.repeat(40) : `x${name}y`) : undefined;
        const url = fillPath(route, extra, pick) + (query ? `?${query}` : '');
        const headers: Record<string, string> = {};
        if (type) headers['content-type'] = type;
        const res = await t.call(callerOf(route), { method: route.method as 'GET', url, payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : payload, headers });
        check(route, res, `body ${String(payload).slice(0, 60)} as ${type}`);
      }),
      { numRuns: RUNS * 4 },
    );
  });

  test('Object.prototype names and random strings as names and values on every route: never a 5xx, never a 2xx that changes anything', async () => {
    const name = fc.oneof(fc.constantFrom(...PROTO_NAMES, '__proto__', 'constructor.prototype', 'toString()', '__proto__.x'), fc.string({ minLength: 1, maxLength: 16 }));
    const where = fc.constantFrom('fields', 'queryName', 'queryValue', 'bodyName');
    await fc.assert(
      fc.asyncProperty(fc.nat(), name, where, async (i, n, at) => {
        const route = routes[i % routes.length];
        const params = queryNames(route);
        const q = new URLSearchParams();
        if (at === 'fields') q.set('fields', n);
        if (at === 'queryName') q.set(n, '1');
        // An enum value, a filter, an order, a page token...: the name as the value of every declared parameter.
        if (at === 'queryValue') for (const p of params) q.set(p, n);
        const payload = at === 'bodyName' ? JSON.stringify(Object.fromEntries([[n, 'x']])) : undefined;
        const res = await t.call(callerOf(route), {
          method: route.method as 'GET',
          url: `${fillPath(route, extra)}?${q}`,
          payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : payload ?? '{}',
          headers: { 'content-type': 'application/json' },
        });
        check(route, res, `${at}=${JSON.stringify(n)}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  test('every Object.prototype name as an update mask path, as the owner: 400 naming the path, nothing written', async () => {
    const url = (mask: string) => `/v2/projects/demo-project/locations/global/keys/${keyId}?updateMask=${encodeURIComponent(mask)}`;
    for (const mask of [...PROTO_NAMES, '__proto__', 'restrictions.constructor', 'restrictions.__proto__', 'restrictions.toString']) {
      const res = await t.call(ALICE, { method: 'PATCH', url: url(mask), payload: { annotations: { x: 'y' } } });
      assert.equal(res.statusCode, 400, `${mask}: ${res.body}`);
      assert.equal(res.json().error.status, 'INVALID_ARGUMENT');
      assert.ok(res.json().error.message.includes(mask.split('.').pop()!), `${mask}: ${res.body}`);
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 20 })// A mask of only separators (`" "`, `","`) is the empty mask (all fields set on the wire): not a name.
      .filter((s) => s.replace(/[\s,]/g, '') !== '' && !/^\s*(display_?[nN]ame|annotations|restrictions(\..*)?|\*)\s*$/.test(s)), async (mask) => {
        const res = await t.call(ALICE, { method: 'PATCH', url: url(mask), payload: { annotations: { x: 'y' } } });
        assert.ok(res.statusCode < 500, `${mask}: ${res.body}`);
        assert.equal(res.statusCode, 400, `${JSON.stringify(mask)}: ${res.body}`);
      }),
      { numRuns: RUNS },
    );
  });

  test('every boolean query parameter of every route reads True/FALSE/y/0 and refuses maybe', async () => {
    let checked = 0;
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const props = (route.schema.querystring as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
      for (const name of Object.keys(props).filter((n) => props[n].type === 'boolean')) {
        for (const v of ['True', 'FALSE', 'y', '0']) {
          const res = await t.call(ALICE, { method: 'GET', url: `${fillPath(route, extra)}?${name}=${v}`, scopes: ALL_SCOPES });
          assert.doesNotMatch(res.body, /TYPE_BOOL/, `${route.url}?${name}=${v}: ${res.body}`);
        }
        const bad = await t.call(ALICE, { method: 'GET', url: `${fillPath(route, extra)}?${name}=maybe`, scopes: ALL_SCOPES });
        assert.equal(bad.statusCode, 400, `${route.url}?${name}=maybe: ${bad.body}`);
        checked++;
      }
    }
    assert.ok(checked >= 1, 'showDeleted at least');
  });

  test('the server is still up and nothing stored changed', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: `/v2/projects/demo-project/locations/global/keys/${keyId}` });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().displayName, 'kept');
    assert.equal(await snapshot(), before_);
  });

  // Last, because an owner's valid request may create something: the services' own body handling
  // (past authorization) meets the same random input. Only "never a 5xx, never internals" here.
  test('as an owner of everything, random bodies at every mutating route: never a 5xx, never internals', async () => {
    const mutating = routes.filter((r) => r.method !== 'GET' && !r.url.startsWith('/_twin/'));
    await fc.assert(
      fc.asyncProperty(fc.nat(), body, contentType, async (i, payload, type) => {
        const route = mutating[i % mutating.length];
        const headers: Record<string, string> = type ? { 'content-type': type } : {};
        const res = await t.call(CAROL, { method: route.method as 'POST', url: fillPath(route, extra), payload, headers, scopes: ALL_SCOPES });
        check(route, res, `owner body ${String(payload).slice(0, 60)} as ${type}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });
});
